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
 *       filter cannot be loaded
 *   sysc reach PID [settled]
 *       every way to another process's memory, descriptors and limits
 *       that has no /proc path, one line each: "ptrace_seize: EPERM";
 *       with settled, raising PID's core limit waits for its hard limit
 *       to be 0 (5 s at most)
 *   sysc signals PID
 *       every signal to PID by kill, rt_sigqueueinfo and
 *       pidfd_send_signal (its own all ignored, as PID may pass them
 *       back); prints each call that failed, then "alive" or kill(PID,
 *       0)'s errno
 *   sysc limits PID
 *       lowers each limit of PID to 0 (CPU and RTTIME to 1), tries its
 *       nice value, affinity, I/O priority and policy; prints each
 *       refusal, then as signals
 *   sysc nested-mount FSTYPE ro|rw [FILE...]
 *       in a new user namespace with no id map (the process keeps its
 *       host uid: root's reads and writes pass the modes of root's files)
 *       and new mount, PID and network namespaces, without an execve
 *       (which would drop the namespace's capabilities), mounts a fresh
 *       FSTYPE on /tmp, nosuid, nodev, noexec and, with ro, read-only;
 *       prints the errno, or "mounted" and for each FILE under it
 *       " FILE:w" when it opens for writing (nothing is written), else
 *       " FILE:N" with the bytes its first read gave, or its errno
 *   sysc nested-umount FILE PATH...
 *       in new user (no id map) and mount namespaces, umount2 each PATH
 *       (MNT_DETACH), printing "PATH:ok" or its errno, then
 *       "FILE:N", the bytes FILE's first read gives, or its errno */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/uio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
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

static void named(const char *what, long r) {
	printf("%s: ", what);
	report(r);
}

/* reach_op is "sysc reach": see the top. The remote address is one no
 * process maps: a call allowed to reach PID fails with EFAULT there, not
 * EPERM. */
static int reach_op(int pid, int settled) {
	char buf[8];
	struct iovec local = {buf, sizeof buf}, remote = {(void *)4096, sizeof buf};
	named("ptrace_seize", syscall(SYS_ptrace, PTRACE_SEIZE, pid, 0, 0));
	named("ptrace_attach", syscall(SYS_ptrace, PTRACE_ATTACH, pid, 0, 0));
	named("process_vm_readv", syscall(SYS_process_vm_readv, pid, &local, 1, &remote, 1, 0));
	named("process_vm_writev", syscall(SYS_process_vm_writev, pid, &local, 1, &remote, 1, 0));
	long pidfd = syscall(SYS_pidfd_open, pid, 0);
	named("pidfd_open", pidfd);
	named("pidfd_getfd", syscall(SYS_pidfd_getfd, pidfd, 0, 0));
	struct iovec range = {(void *)4096, 4096};
	named("process_madvise", syscall(SYS_process_madvise, pidfd, &range, 1, MADV_COLD, 0));
	named("process_mrelease", syscall(SYS_process_mrelease, pidfd, 0));
	named("kcmp", syscall(SYS_kcmp, getpid(), pid, 0 /* KCMP_FILE */, 0, 0));
	void *head;
	size_t len;
	named("get_robust_list", syscall(SYS_get_robust_list, pid, &head, &len));
	unsigned long nodes = 1;
	named("migrate_pages", syscall(SYS_migrate_pages, pid, 64, &nodes, &nodes));
	named("move_pages", syscall(SYS_move_pages, pid, 0, NULL, NULL, NULL, 0));
	struct perf_event_attr pa = {.size = sizeof pa, .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_CPU_CLOCK, .exclude_kernel = 1};
	long perf = syscall(SYS_perf_event_open, &pa, pid, -1, -1, 0);
	if (perf == -1 && errno == EACCES)
		errno = EPERM; /* perf_event_paranoid says no before the ptrace check */
	named("perf_event_open", perf);
	/* With settled, wait for PID's hard core limit to be 0 (5 s at
	 * most). */
	struct rlimit unlimited = {RLIM_INFINITY, RLIM_INFINITY}, core = {0, 1};
	for (int i = 0; settled && i < 500 && core.rlim_max != 0; i++) {
		if (syscall(SYS_prlimit64, pid, RLIMIT_CORE, NULL, &core))
			break;
		if (core.rlim_max != 0)
			nanosleep(&(struct timespec){0, 10000000}, NULL);
	}
	named("prlimit_core_raise", syscall(SYS_prlimit64, pid, RLIMIT_CORE, &unlimited, NULL));
	if (syscall(SYS_prlimit64, pid, RLIMIT_CORE, NULL, &core) == 0)
		printf("core: %llu %llu\n", (unsigned long long)core.rlim_cur, (unsigned long long)core.rlim_max);
	return 0;
}

static void alive(int pid) {
	struct timespec ts = {0, 100000000};
	nanosleep(&ts, NULL);
	if (kill(pid, 0) == 0)
		printf("alive\n");
	else
		printf("%s\n", strerrorname_np(errno));
}

/* signals_op is "sysc signals": see the top. */
static int signals_op(int pid) {
	for (int s = 1; s < 65; s++)
		signal(s, SIG_IGN);
	long pidfd = syscall(SYS_pidfd_open, pid, 0);
	for (int s = 1; s < 65; s++) {
		if (kill(pid, s))
			printf("kill %d: %s\n", s, strerrorname_np(errno));
		siginfo_t si = {.si_signo = s, .si_code = SI_QUEUE};
		si.si_pid = getpid();
		si.si_uid = getuid();
		if (syscall(SYS_rt_sigqueueinfo, pid, s, &si))
			printf("rt_sigqueueinfo %d: %s\n", s, strerrorname_np(errno));
		if (syscall(SYS_pidfd_send_signal, pidfd, s, NULL, 0))
			printf("pidfd_send_signal %d: %s\n", s, strerrorname_np(errno));
	}
	alive(pid);
	return 0;
}

/* limits_op is "sysc limits": see the top. */
static int limits_op(int pid) {
	static const int res[] = {RLIMIT_NOFILE, RLIMIT_STACK, RLIMIT_AS, RLIMIT_DATA, RLIMIT_FSIZE, RLIMIT_MEMLOCK,
	                          RLIMIT_NPROC, RLIMIT_SIGPENDING, RLIMIT_MSGQUEUE, RLIMIT_CORE, RLIMIT_RTTIME, RLIMIT_CPU};
	for (unsigned i = 0; i < sizeof res / sizeof res[0]; i++) {
		struct rlimit l = {0, 0};
		if (res[i] == RLIMIT_RTTIME || res[i] == RLIMIT_CPU)
			l.rlim_cur = l.rlim_max = 1;
		if (syscall(SYS_prlimit64, pid, res[i], &l, NULL))
			printf("prlimit %d: %s\n", res[i], strerrorname_np(errno));
	}
	if (setpriority(PRIO_PROCESS, pid, 19))
		printf("setpriority: %s\n", strerrorname_np(errno));
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (sched_setaffinity(pid, sizeof set, &set))
		printf("sched_setaffinity: %s\n", strerrorname_np(errno));
	if (syscall(SYS_ioprio_set, 1 /* IOPRIO_WHO_PROCESS */, pid, 3 << 13 /* IOPRIO_CLASS_IDLE */))
		printf("ioprio_set: %s\n", strerrorname_np(errno));
	struct sched_param sp = {0};
	if (sched_setscheduler(pid, SCHED_IDLE, &sp))
		printf("sched_setscheduler: %s\n", strerrorname_np(errno));
	alive(pid);
	return 0;
}

static int nested_mount_op(int argc, char **argv) {
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET)) {
		printf("unshare: %s\n", strerrorname_np(errno));
		return 0;
	}
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0)
		return 2;
	if (pid > 0) {
		int st;
		waitpid(pid, &st, 0);
		return WIFEXITED(st) ? WEXITSTATUS(st) : 2;
	}
	unsigned long flags = MS_NOSUID | MS_NODEV | MS_NOEXEC;
	if (!strcmp(argv[3], "ro"))
		flags |= MS_RDONLY;
	if (mount(argv[2], "/tmp", argv[2], flags, NULL)) {
		printf("%s\n", strerrorname_np(errno));
		return 0;
	}
	printf("mounted");
	for (int i = 4; i < argc; i++) {
		char p[4096], b[4096];
		snprintf(p, sizeof p, "/tmp/%s", argv[i]);
		int fd = open(p, O_WRONLY | O_CLOEXEC);
		if (fd >= 0) {
			close(fd);
			printf(" %s:w", argv[i]);
			continue;
		}
		fd = open(p, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			printf(" %s:%s", argv[i], strerrorname_np(errno));
			continue;
		}
		ssize_t n = read(fd, b, sizeof b);
		if (n < 0)
			printf(" %s:%s", argv[i], strerrorname_np(errno));
		else
			printf(" %s:%zd", argv[i], n);
		close(fd);
	}
	printf("\n");
	return 0;
}

static int nested_umount_op(int argc, char **argv) {
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS)) {
		printf("unshare: %s\n", strerrorname_np(errno));
		return 0;
	}
	for (int i = 3; i < argc; i++) {
		if (umount2(argv[i], MNT_DETACH))
			printf("%s:%s ", argv[i], strerrorname_np(errno));
		else
			printf("%s:ok ", argv[i]);
	}
	char b[4096];
	int fd = open(argv[2], O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		printf("%s:%s\n", argv[2], strerrorname_np(errno));
		return 0;
	}
	ssize_t n = read(fd, b, sizeof b);
	if (n < 0)
		printf("%s:%s\n", argv[2], strerrorname_np(errno));
	else
		printf("%s:%zd\n", argv[2], n);
	return 0;
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
	if (!strcmp(argv[1], "reach") && (argc == 3 || (argc == 4 && !strcmp(argv[3], "settled"))))
		return reach_op(atoi(argv[2]), argc == 4);
	if (!strcmp(argv[1], "signals") && argc == 3)
		return signals_op(atoi(argv[2]));
	if (!strcmp(argv[1], "limits") && argc == 3)
		return limits_op(atoi(argv[2]));
	if (!strcmp(argv[1], "nested-mount") && argc >= 4)
		return nested_mount_op(argc, argv);
	if (!strcmp(argv[1], "nested-umount") && argc >= 4)
		return nested_umount_op(argc, argv);
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
