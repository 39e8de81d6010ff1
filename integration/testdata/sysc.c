/* sysc makes one raw system call and prints "ok" or the errno's name, so
 * tests can assert the exact outcome of each call a filter denies.
 *   sysc raw NR [ARG...]   syscall(NR, ARG...) with numeric arguments
 *   sysc x32               getpid through the x32 ABI (amd64)
 *   sysc int80             getpid through the i386 ABI (amd64) */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static void report(long r) {
	if (r == -1)
		printf("%s\n", strerrorname_np(errno));
	else
		printf("ok\n");
}

int main(int argc, char **argv) {
	if (argc < 2)
		return 2;
	if (!strcmp(argv[1], "raw") && argc >= 3) {
		unsigned long a[6] = {0};
		for (int i = 3; i < argc && i < 9; i++)
			a[i - 3] = strtoul(argv[i], NULL, 0);
		report(syscall(strtol(argv[2], NULL, 0), a[0], a[1], a[2], a[3], a[4], a[5]));
		return 0;
	}
#if defined(__x86_64__)
	if (!strcmp(argv[1], "x32")) {
		report(syscall(0x40000000 | SYS_getpid));
		return 0;
	}
	if (!strcmp(argv[1], "int80")) {
		long r;
		__asm__ volatile("int $0x80" : "=a"(r) : "a"(20L) : "memory");
		if (r < 0) {
			errno = -r;
			r = -1;
		}
		report(r);
		return 0;
	}
#endif
	return 2;
}
