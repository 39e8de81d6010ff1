// Command noop does nothing: bench/startup.sh times it beside the
// launchers, as what starting any Go program costs on the machine (the
// runtime's start, which nsrun's CLI cannot avoid).
package main

func main() {}
