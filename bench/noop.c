/* Does nothing: bench/startup.sh times it, built static, as what starting
   any process costs on the machine. */
int main(void) { return 0; }
