//go:build linux && amd64

package seccomp

import (
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

func TestLandlockOnlyFilterDecisions(t *testing.T) {
	const (
		notify = retUserNotif
		eacces = retErrno | errEACCES
	)
	for _, o := range []LandlockOnlyOptions{{Connect: true, Unix: UnixNoDatagram}, {Connect: true}, {Unix: UnixPairsOnly}} {
		c, err := compileFor(LandlockOnly(o), "amd64")
		if err != nil {
			t.Fatal(err)
		}
		connect, dgram, stream := uint32(allow), uint32(allow), uint32(allow)
		if o.Connect {
			connect = notify
		}
		if o.Unix != UnixAll {
			dgram = eacces
		}
		if o.Unix == UnixPairsOnly {
			stream = eacces
		}
		for _, tc := range []struct {
			name string
			nr   uint32
			args [6]uint64
			want uint32
		}{
			{"getpid", unix.SYS_GETPID, [6]uint64{}, allow},
			{"connect", unix.SYS_CONNECT, [6]uint64{3, 0x1000, 110}, connect},
			{"sendto", unix.SYS_SENDTO, [6]uint64{3, 0x1000, 1, 0, 0x2000, 110}, allow},
			{"socket unix stream", unix.SYS_SOCKET, [6]uint64{unix.AF_UNIX, unix.SOCK_STREAM | unix.SOCK_CLOEXEC}, stream},
			{"socket unix seqpacket", unix.SYS_SOCKET, [6]uint64{unix.AF_UNIX, unix.SOCK_SEQPACKET}, stream},
			{"socketpair unix stream", unix.SYS_SOCKETPAIR, [6]uint64{unix.AF_UNIX, unix.SOCK_STREAM}, allow},
			{"socket unix datagram", unix.SYS_SOCKET, [6]uint64{unix.AF_UNIX, unix.SOCK_DGRAM | unix.SOCK_NONBLOCK | unix.SOCK_CLOEXEC}, dgram},
			{"socket unix datagram, high bits", unix.SYS_SOCKET, [6]uint64{unix.AF_UNIX | 1<<32, unix.SOCK_DGRAM | 1<<40}, dgram},
			{"socket unix stream, high bits", unix.SYS_SOCKET, [6]uint64{unix.AF_UNIX | 1<<32, unix.SOCK_STREAM | 1<<40}, stream},
			{"socketpair unix datagram", unix.SYS_SOCKETPAIR, [6]uint64{unix.AF_UNIX, unix.SOCK_DGRAM}, dgram},
			// unix_create makes SOCK_RAW a datagram socket.
			{"socket unix raw", unix.SYS_SOCKET, [6]uint64{unix.AF_UNIX, unix.SOCK_RAW | unix.SOCK_CLOEXEC}, dgram},
			{"socketpair unix raw", unix.SYS_SOCKETPAIR, [6]uint64{unix.AF_UNIX, unix.SOCK_RAW}, dgram},
			{"socket inet datagram", unix.SYS_SOCKET, [6]uint64{unix.AF_INET, unix.SOCK_DGRAM}, allow},
			{"chmod", unix.SYS_CHMOD, [6]uint64{0x1000, 0o644}, notify},
			{"fchmod", unix.SYS_FCHMOD, [6]uint64{3, 0o644}, notify},
			{"fchmodat2", 452, [6]uint64{3, 0x1000, 0o644, unix.AT_EMPTY_PATH}, notify},
			{"lchown", unix.SYS_LCHOWN, [6]uint64{0x1000, 0, 0}, notify},
			{"utimensat", unix.SYS_UTIMENSAT, [6]uint64{3, 0, 0, 0}, notify},
			{"fsetxattr", unix.SYS_FSETXATTR, [6]uint64{3, 0x1000, 0x2000, 1, 0}, notify},
			{"removexattrat", 466, [6]uint64{3, 0x1000, 0, 0x2000}, notify},
			{"io_uring_setup", unix.SYS_IO_URING_SETUP, [6]uint64{8, 0x1000}, eperm1},
			{"prlimit64 of self", unix.SYS_PRLIMIT64, [6]uint64{0, unix.RLIMIT_CPU, 0x1000, 0}, allow},
			{"prlimit64 read of another", unix.SYS_PRLIMIT64, [6]uint64{42, unix.RLIMIT_CPU, 0, 0x1000}, allow},
			{"prlimit64 set on another", unix.SYS_PRLIMIT64, [6]uint64{42, unix.RLIMIT_CPU, 0x1000, 0}, notify},
			{"setpriority of self", unix.SYS_SETPRIORITY, [6]uint64{unix.PRIO_PROCESS, 0, 10}, allow},
			{"setpriority of another", unix.SYS_SETPRIORITY, [6]uint64{unix.PRIO_PROCESS, 42, 10}, notify},
			{"setpriority of the group", unix.SYS_SETPRIORITY, [6]uint64{unix.PRIO_PGRP, 0, 10}, notify},
			{"setpriority of the user", unix.SYS_SETPRIORITY, [6]uint64{unix.PRIO_USER, 0, 10}, notify},
			{"ioprio_set of self", unix.SYS_IOPRIO_SET, [6]uint64{1, 0, 0x6000}, allow},
			{"ioprio_set of the user", unix.SYS_IOPRIO_SET, [6]uint64{3, 0, 0x6000}, notify},
			{"ioprio_set of another", unix.SYS_IOPRIO_SET, [6]uint64{1, 42, 0x6000}, notify},
			{"sched_setaffinity of self", unix.SYS_SCHED_SETAFFINITY, [6]uint64{0, 8, 0x1000}, allow},
			{"sched_setaffinity of another", unix.SYS_SCHED_SETAFFINITY, [6]uint64{42, 8, 0x1000}, notify},
			{"sched_setattr of another", unix.SYS_SCHED_SETATTR, [6]uint64{42, 0x1000, 0}, notify},
			{"sched_getattr of another", unix.SYS_SCHED_GETATTR, [6]uint64{42, 0x1000, 56, 0}, allow},
			{"ioctl chattr", unix.SYS_IOCTL, [6]uint64{3, unix.FS_IOC_SETFLAGS, 0x1000}, notify},
			{"ioctl chattr, high bits", unix.SYS_IOCTL, [6]uint64{3, unix.FS_IOC_SETFLAGS | 1<<32, 0x1000}, notify},
			{"ioctl fssetxattr", unix.SYS_IOCTL, [6]uint64{3, fsIocFssetxattr, 0x1000}, notify},
			{"ioctl verity", unix.SYS_IOCTL, [6]uint64{3, unix.FS_IOC_ENABLE_VERITY, 0x1000}, notify},
			{"ioctl getflags", unix.SYS_IOCTL, [6]uint64{3, unix.FS_IOC_GETFLAGS, 0x1000}, allow},
			{"ioctl setversion", unix.SYS_IOCTL, [6]uint64{3, 0x40087602, 0x1000}, eperm1},
			{"ioctl ext4 setversion", unix.SYS_IOCTL, [6]uint64{3, 0x40086604, 0x1000}, eperm1},
			{"ioctl getversion", unix.SYS_IOCTL, [6]uint64{3, 0x80087601, 0x1000}, allow},
			{"ioctl TCGETS", unix.SYS_IOCTL, [6]uint64{0, unix.TCGETS, 0x1000}, allow},
			{"x32 chmod", x32Bit | 90, [6]uint64{}, kill},
		} {
			if got := run(t, c.Program, auditArchX86_64, tc.nr, tc.args); got != tc.want {
				t.Errorf("%+v, %s: %#x, want %#x", o, tc.name, got, tc.want)
			}
		}
	}
}

func TestLandlockOnlyIoctlNumbersAreTheKernels(t *testing.T) {
	for name, pair := range map[string][2]uint64{
		"FS_IOC_SETFLAGS":              {fsIocSetflags, unix.FS_IOC_SETFLAGS},
		"FS_IOC_ENABLE_VERITY":         {fsIocEnableVerity, unix.FS_IOC_ENABLE_VERITY},
		"FS_IOC_SET_ENCRYPTION_POLICY": {fsIocSetEncryptionPolicy, unix.FS_IOC_SET_ENCRYPTION_POLICY},
		"EACCES":                       {errEACCES, uint64(unix.EACCES)},
	} {
		if pair[0] != pair[1] {
			t.Errorf("%s: %#x, kernel %#x", name, pair[0], pair[1])
		}
	}
}

// The notification structures are the kernel's, whose sizes the ioctl
// numbers carry.
func TestNotificationLayout(t *testing.T) {
	if got, want := unsafe.Sizeof(Notification{}), uintptr(unix.SECCOMP_IOCTL_NOTIF_RECV>>16&0x3fff); got != want {
		t.Errorf("struct seccomp_notif: %d bytes, the kernel's %d", got, want)
	}
	if got, want := unsafe.Sizeof(notifResp{}), uintptr(unix.SECCOMP_IOCTL_NOTIF_SEND>>16&0x3fff); got != want {
		t.Errorf("struct seccomp_notif_resp: %d bytes, the kernel's %d", got, want)
	}
	if got, want := unsafe.Sizeof(notifAddfd{}), uintptr(unix.SECCOMP_IOCTL_NOTIF_ADDFD>>16&0x3fff); got != want {
		t.Errorf("struct seccomp_notif_addfd: %d bytes, the kernel's %d", got, want)
	}
}

func TestLandlockOnlyEntriesFilter(t *testing.T) {
	c, err := compileFor(LandlockOnly(LandlockOnlyOptions{Entries: true}), "amd64")
	if err != nil {
		t.Fatal(err)
	}
	none, _ := compileFor(LandlockOnly(LandlockOnlyOptions{}), "amd64")
	for _, tc := range []struct {
		name string
		nr   uint32
		args [6]uint64
		want uint32
	}{
		{"openat for reading", unix.SYS_OPENAT, [6]uint64{3, 0x1000, unix.O_RDONLY | unix.O_CLOEXEC}, allow},
		{"openat a directory", unix.SYS_OPENAT, [6]uint64{3, 0x1000, unix.O_RDONLY | unix.O_DIRECTORY}, allow},
		{"openat for writing", unix.SYS_OPENAT, [6]uint64{3, 0x1000, unix.O_WRONLY}, retUserNotif},
		{"openat read-write", unix.SYS_OPENAT, [6]uint64{3, 0x1000, unix.O_RDWR}, retUserNotif},
		{"openat creating", unix.SYS_OPENAT, [6]uint64{3, 0x1000, unix.O_RDONLY | unix.O_CREAT}, retUserNotif},
		{"openat truncating", unix.SYS_OPENAT, [6]uint64{3, 0x1000, unix.O_RDONLY | unix.O_TRUNC}, retUserNotif},
		{"open for writing", unix.SYS_OPEN, [6]uint64{0x1000, unix.O_WRONLY | unix.O_APPEND}, retUserNotif},
		{"open for reading", unix.SYS_OPEN, [6]uint64{0x1000, unix.O_RDONLY}, allow},
		{"creat", unix.SYS_CREAT, [6]uint64{0x1000, 0o644}, retUserNotif},
		{"openat2", unix.SYS_OPENAT2, [6]uint64{3, 0x1000, 0x2000, 24}, retUserNotif},
		{"mkdirat", unix.SYS_MKDIRAT, [6]uint64{3, 0x1000, 0o755}, retUserNotif},
		{"unlinkat", unix.SYS_UNLINKAT, [6]uint64{3, 0x1000, 0}, retUserNotif},
		{"renameat2", unix.SYS_RENAMEAT2, [6]uint64{3, 0x1000, 3, 0x2000, 0}, retUserNotif},
		{"linkat", unix.SYS_LINKAT, [6]uint64{3, 0x1000, 3, 0x2000, 0}, retUserNotif},
		{"symlinkat", unix.SYS_SYMLINKAT, [6]uint64{0x1000, 3, 0x2000}, retUserNotif},
		{"truncate", unix.SYS_TRUNCATE, [6]uint64{0x1000, 0}, retUserNotif},
		{"ftruncate", unix.SYS_FTRUNCATE, [6]uint64{3, 0}, allow},
	} {
		if got := run(t, c.Program, auditArchX86_64, tc.nr, tc.args); got != tc.want {
			t.Errorf("%s: %#x, want %#x", tc.name, got, tc.want)
		}
		if got := run(t, none.Program, auditArchX86_64, tc.nr, tc.args); got != allow {
			t.Errorf("without Entries, %s: %#x, want allow", tc.name, got)
		}
	}
}

// listen() goes to the supervisor only where it checks it (Listen): the
// guard's own hand-over is off in this mode, as a task tree has one
// listener.
func TestLandlockOnlyListenFilter(t *testing.T) {
	with, err := compileFor(LandlockOnly(LandlockOnlyOptions{Listen: true}), "amd64")
	if err != nil {
		t.Fatal(err)
	}
	without, err := compileFor(LandlockOnly(LandlockOnlyOptions{}), "amd64")
	if err != nil {
		t.Fatal(err)
	}
	args := [6]uint64{3, 16}
	if got := run(t, with.Program, auditArchX86_64, unix.SYS_LISTEN, args); got != retUserNotif {
		t.Errorf("listen with Listen: %#x, want notify", got)
	}
	if got := run(t, without.Program, auditArchX86_64, unix.SYS_LISTEN, args); got != allow {
		t.Errorf("listen without Listen: %#x, want allow", got)
	}
}
