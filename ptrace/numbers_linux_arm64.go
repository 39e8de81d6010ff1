package ptrace

import "golang.org/x/sys/unix"

// sysNumbers number the observed calls this architecture has.
var sysNumbers = []sysNumber{
	{"openat", unix.SYS_OPENAT},
	{"mkdirat", unix.SYS_MKDIRAT},
	{"mknodat", unix.SYS_MKNODAT},
	{"unlinkat", unix.SYS_UNLINKAT},
	{"renameat", unix.SYS_RENAMEAT},
	{"renameat2", unix.SYS_RENAMEAT2},
	{"linkat", unix.SYS_LINKAT},
	{"symlinkat", unix.SYS_SYMLINKAT},
	{"truncate", unix.SYS_TRUNCATE},
	{"fchmod", unix.SYS_FCHMOD},
	{"fchmodat", unix.SYS_FCHMODAT},
	{"fchmodat2", unix.SYS_FCHMODAT2},
	{"fchown", unix.SYS_FCHOWN},
	{"fchownat", unix.SYS_FCHOWNAT},
	{"utimensat", unix.SYS_UTIMENSAT},
	{"setxattr", unix.SYS_SETXATTR},
	{"lsetxattr", unix.SYS_LSETXATTR},
	{"fsetxattr", unix.SYS_FSETXATTR},
	{"removexattr", unix.SYS_REMOVEXATTR},
	{"lremovexattr", unix.SYS_LREMOVEXATTR},
	{"fremovexattr", unix.SYS_FREMOVEXATTR},
	{"execve", unix.SYS_EXECVE},
	{"execveat", unix.SYS_EXECVEAT},
	{"chdir", unix.SYS_CHDIR},
	{"connect", unix.SYS_CONNECT},
	{"bind", unix.SYS_BIND},
	{"sendto", unix.SYS_SENDTO},
	{"ptrace", unix.SYS_PTRACE},
}
