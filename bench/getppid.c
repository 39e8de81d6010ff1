/* getppid N times: a syscall-heavy workload for measuring filter cost. */
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv) {
	long n = argc > 1 ? atol(argv[1]) : 5000000;
	for (long i = 0; i < n; i++)
		syscall(SYS_getppid);
	return 0;
}
