package nsrun

import (
	"testing"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/internal/plan"
	"github.com/nsrun/nsrun/ptrace"
)

func TestDenialJudge(t *testing.T) {
	rules := []Rule{
		{Path: "/home/me/proj", Access: ReadWrite},
		{Path: "/home/me/proj/.git", Access: ReadOnly},
		{Path: "/home/me/.ssh", Access: Deny},
		{Path: "/etc/shadow", Access: Deny, Source: SourceMandatory},
	}
	full := newJudge(&Policy{}, rules, false)
	ll := newJudge(&Policy{}, rules, true)
	ll.Writable = []string{"/tmp/nsrun-1"}
	open := func(p string, flags uint64, e unix.Errno) ptrace.Event {
		return ptrace.Event{Call: "openat", Paths: []string{p}, Flags: flags, Errno: e}
	}
	cases := []struct {
		name        string
		j           *plan.Judge
		ev          ptrace.Event
		ok          bool
		op, rule    string
		allow, path string
	}{
		{"ro root", full, open("/usr/x", unix.O_WRONLY|unix.O_CREAT, unix.EROFS), true, "open for write", "read-only: host root", "--rw /usr", "/usr/x"},
		{"ro rule", full, open("/home/me/proj/.git/config", unix.O_RDWR, unix.EROFS), true, "open for write", "read-only: --ro /home/me/proj/.git", "--rw /home/me/proj/.git/config", "/home/me/proj/.git/config"},
		{"deny", full, open("/home/me/.ssh/id", 0, unix.ENOENT), true, "open", "--deny /home/me/.ssh", "", "/home/me/.ssh/id"},
		{"mandatory", full, open("/etc/shadow", unix.O_WRONLY, unix.EROFS), true, "open for write", "--deny /etc/shadow (mandatory)", "", "/etc/shadow"},
		{"missing file", full, open("/home/me/proj/nope", 0, unix.ENOENT), false, "", "", "", ""},
		{"permissions", full, open("/home/me/proj/x", unix.O_WRONLY, unix.EACCES), false, "", "", "", ""},
		{"unlink", full, ptrace.Event{Call: "unlinkat", Paths: []string{"/usr/bin/x"}, Errno: unix.EROFS}, true, "unlink", "read-only: host root", "--rw /usr/bin", "/usr/bin/x"},
		{"rmdir", full, ptrace.Event{Call: "unlinkat", Args: [6]uint64{0, 0, unix.AT_REMOVEDIR}, Paths: []string{"/usr/d"}, Errno: unix.EROFS}, true, "rmdir", "read-only: host root", "--rw /usr", "/usr/d"},
		{"landlock write", ll, open("/usr/x", unix.O_WRONLY, unix.EACCES), true, "open for write", "landlock: read-only: host root", "--rw /usr/x", "/usr/x"},
		{"landlock tmp", ll, open("/tmp/nsrun-1/x", unix.O_WRONLY, unix.EACCES), false, "", "", "", ""},
		{"landlock exec", ll, ptrace.Event{Call: "execve", Paths: []string{"/home/me/bin/tool"}, Errno: unix.EACCES}, true, "exec", "landlock: executes only from /usr, /bin, /sbin, /lib, /lib32, /lib64, /libx32, /opt and the rules' paths", "--ro /home/me/bin", "/home/me/bin/tool"},
		{"landlock exec allowed", ll, ptrace.Event{Call: "execve", Paths: []string{"/home/me/proj/run"}, Errno: unix.EACCES}, false, "", "", "", ""},
		{"landlock dev", ll, open("/dev/kvm", unix.O_RDWR, unix.EACCES), true, "open for write", "landlock: /dev: only /dev/null, /dev/zero, /dev/full, /dev/random, /dev/urandom, /dev/tty and the terminal", "", "/dev/kvm"},
		{"net none", full, ptrace.Event{Call: "connect", Addr: "192.0.2.1:9", Errno: unix.ENETUNREACH}, true, "connect", "network: not allowed (--net none)", "--net host", ""},
		{"refused loopback", full, ptrace.Event{Call: "connect", Addr: "127.0.0.1:9", Errno: unix.ECONNREFUSED}, false, "", "", "", ""},
		{"port rule", newJudge(&Policy{Net: NetHost}, nil, false), ptrace.Event{Call: "bind", Addr: "0.0.0.0:8080", Errno: unix.EACCES}, true, "bind", "network: port not allowed", "--allow-bind 8080", ""},
		{"keyctl", full, ptrace.Event{Call: "keyctl", Refused: true, Errno: unix.EPERM}, true, "keyctl", "seccomp: keyctl", "", ""},
		{"unshare", full, ptrace.Event{Call: "unshare", Refused: true, Errno: unix.EPERM}, true, "unshare", "seccomp: unshare", "--allow-userns", ""},
		{"socket", full, ptrace.Event{Call: "socket", Refused: true, Errno: unix.EAFNOSUPPORT, Addr: "AF_ALG SOCK_SEQPACKET"}, true, "socket", "seccomp: socket AF_ALG", "", ""},
		{"ptrace", full, ptrace.Event{Call: "ptrace", Errno: unix.EPERM}, true, "ptrace", "trace-denials: nothing in a traced sandbox can use ptrace", "", ""},
	}
	for _, c := range cases {
		d, ok := c.j.Judge(c.ev)
		if ok != c.ok {
			t.Errorf("%s: judged %v (%+v), want %v", c.name, ok, d, c.ok)
			continue
		}
		if ok && (d.Operation != c.op || d.Rule != c.rule || d.Allow != c.allow || d.Path != c.path || d.Errno != unix.ErrnoName(c.ev.Errno)) {
			t.Errorf("%s: %+v", c.name, d)
		}
	}
}
