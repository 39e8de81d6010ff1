/* sysc makes one raw system call and prints "ok" or the errno's name, so
 * tests can assert the exact outcome of each call a filter denies.
 *   sysc raw NR [ARG...]   syscall(NR, ARG...) with numeric arguments
 *   sysc x32               getpid through the x32 ABI (amd64)
 *   sysc int80             getpid through the i386 ABI (amd64)
 *   sysc sig HOW WHAT [NR [ARG...]]
 *       SIGSYS set up as HOW (default, handler, resethand, blocked,
 *       ignored), then WHAT, one step or several separated by commas:
 *       call (syscall NR), raise (the thread sends itself SIGSYS), forge
 *       (SIGSYS sent to itself with rt_sigqueueinfo, dressed as a seccomp
 *       trap of call NR); prints the last step's outcome, how often
 *       the handler ran and with which si_code, and SIGSYS's state after:
 *       "EPERM handled=0 code=- blocked=0 pending=0 action=handler"
 *   sysc filtered RET NR [ARG...]
 *       loads a seccomp filter of its own that answers call NR with RET
 *       (SECCOMP_RET_*, data included) and allows the rest, then makes
 *       the call
 *   sysc continue NR [ARG...]
 *       loads a filter that hands call NR to its own listener, answers the
 *       notification with SECCOMP_USER_NOTIF_FLAG_CONTINUE (the call goes
 *       on) from a thread, then makes the call; "load: ERRNO" when the
 *       filter cannot be loaded */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static void report(long r) {
	if (r == -1)
		printf("%s\n", strerrorname_np(errno));
	else
		printf("ok\n");
}

static volatile sig_atomic_t handled, code = -100;

static void on_sigsys(int sig, siginfo_t *si, void *uc) {
	(void)sig;
	(void)uc;
	handled++;
	code = si->si_code;
}

/* sig_op is "sysc sig": see the top. */
static int sig_op(int argc, char **argv) {
	const char *how = argv[2], *what = argv[3];
	long nr = argc > 4 ? strtol(argv[4], NULL, 0) : 0;
	unsigned long a[6] = {0};
	for (int i = 5; i < argc && i < 11; i++)
		a[i - 5] = strtoul(argv[i], NULL, 0);
	struct sigaction sa = {0};
	sa.sa_sigaction = on_sigsys;
	sa.sa_flags = SA_SIGINFO;
	if (!strcmp(how, "resethand"))
		sa.sa_flags |= SA_RESETHAND;
	if (!strcmp(how, "ignored")) {
		sa.sa_handler = SIG_IGN;
		sa.sa_flags = 0;
	}
	if (strcmp(how, "default") && sigaction(SIGSYS, &sa, NULL))
		return 2;
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGSYS);
	if (!strcmp(how, "blocked") && sigprocmask(SIG_BLOCK, &set, NULL))
		return 2;
	long r = 0;
	/* WHAT is one step or several, comma-separated: the last one's
	 * outcome is printed. */
	char steps[64];
	snprintf(steps, sizeof steps, "%s", what);
	for (char *save, *step = strtok_r(steps, ",", &save); step; step = strtok_r(NULL, ",", &save)) {
		if (!strcmp(step, "call")) {
			r = syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
		} else if (!strcmp(step, "raise")) {
			r = raise(SIGSYS) ? -1 : 0;
		} else if (!strcmp(step, "forge")) {
			siginfo_t si = {0};
			si.si_signo = SIGSYS;
			si.si_code = 1; /* SYS_SECCOMP */
			si.si_errno = 0x8000 | EPERM;
			si.si_syscall = nr;
			si.si_call_addr = (void *)sig_op;
			r = syscall(SYS_rt_sigqueueinfo, getpid(), SIGSYS, &si);
		} else {
			return 2;
		}
	}
	sigset_t now, pending;
	sigprocmask(SIG_SETMASK, NULL, &now);
	sigpending(&pending);
	struct sigaction old;
	sigaction(SIGSYS, NULL, &old);
	const char *action = "handler";
	if (old.sa_handler == SIG_DFL)
		action = "default";
	else if (old.sa_handler == SIG_IGN)
		action = "ignore";
	if (r == -1)
		printf("%s", strerrorname_np(errno));
	else
		printf("ok");
	printf(" handled=%d code=", (int)handled);
	if (code == -100)
		printf("-");
	else
		printf("%d", (int)code);
	printf(" blocked=%d pending=%d action=%s\n", sigismember(&now, SIGSYS), sigismember(&pending, SIGSYS), action);
	return 0;
}

/* own_filter loads "call nr: ret, else allow" with flags; returns what
 * seccomp(2) returns. */
static long own_filter(long nr, unsigned int ret, unsigned long flags) {
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, nr, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, ret),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {.len = sizeof f / sizeof f[0], .filter = f};
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &prog);
}

static void *answer_continue(void *arg) {
	int listener = *(int *)arg;
	struct seccomp_notif req = {0};
	if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &req))
		return NULL;
	struct seccomp_notif_resp resp = {.id = req.id, .flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE};
	ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
	return NULL;
}

static void call_args(int argc, char **argv, int from, unsigned long a[6]) {
	for (int i = from; i < argc && i < from + 6; i++)
		a[i - from] = strtoul(argv[i], NULL, 0);
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
	if (!strcmp(argv[1], "sig") && argc >= 4)
		return sig_op(argc, argv);
	if (!strcmp(argv[1], "filtered") && argc >= 4) {
		long nr = strtol(argv[3], NULL, 0);
		unsigned long a[6] = {0};
		call_args(argc, argv, 4, a);
		if (own_filter(nr, strtoul(argv[2], NULL, 0), 0)) {
			printf("load: %s\n", strerrorname_np(errno));
			return 0;
		}
		report(syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]));
		return 0;
	}
	if (!strcmp(argv[1], "continue") && argc >= 3) {
		long nr = strtol(argv[2], NULL, 0);
		unsigned long a[6] = {0};
		call_args(argc, argv, 3, a);
		static int listener;
		listener = own_filter(nr, SECCOMP_RET_USER_NOTIF, SECCOMP_FILTER_FLAG_NEW_LISTENER);
		if (listener < 0) {
			printf("load: %s\n", strerrorname_np(errno));
			return 0;
		}
		pthread_t t;
		if (pthread_create(&t, NULL, answer_continue, &listener))
			return 2;
		report(syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]));
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
