package plan

import (
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/internal/launch"
	"github.com/nsrun/nsrun/internal/paths"
	"github.com/nsrun/nsrun/mounts"
	"github.com/nsrun/nsrun/ptrace"
)

// Judge decides whether a call that failed was refused by the sandbox,
// and by which rule, from the rules the sandbox was built from. A failure
// no rule explains (a file that does not exist, a permission of the file
// itself) is not a denial.
type Judge struct {
	// Resolve is the resolver behind nsrun policy explain: the access the
	// sandbox gives p, and the rule that decides it (ok false: none does,
	// the root's access holds). label names the rule as the command line
	// gives it; mandatory says no option can widen it.
	Resolve      func(p string) (access mounts.Access, label string, mandatory, ok bool)
	Root         string // what the payload's root is, for rules: "host root"
	LandlockOnly bool
	Writable     []string // Landlock-only: the private temporary directory
	HostNet      bool
	Filtered     bool // the filtered network: a proxy, nothing direct
}

// Denial mirrors the root package's report of one refused call, field
// for field.
type Denial struct {
	Pid       int
	Argv0     string
	Operation string
	Path      string
	Address   string
	Errno     string
	Rule      string
	Allow     string
	Count     int
}

// Judge turns a traced call into a denial, or says it was none.
func (j *Judge) Judge(ev ptrace.Event) (Denial, bool) {
	d := Denial{Errno: unix.ErrnoName(ev.Errno), Operation: operation(ev)}
	if d.Errno == "" {
		d.Errno = ev.Errno.Error()
	}
	if ev.Refused {
		return j.refused(ev, d), true
	}
	switch ev.Call {
	case "connect", "bind", "sendto":
		return j.network(ev, d)
	case "ptrace":
		// A traced process can neither be traced again nor trace.
		d.Rule = "trace-denials: nothing in a traced sandbox can use ptrace"
		return d, ev.Errno == unix.EPERM
	}
	paths := ev.Paths
	if len(paths) == 0 && ev.FD != "" {
		paths = []string{ev.FD}
	}
	for _, p := range paths {
		if rule, allow, ok := j.path(d.Operation, ev, p); ok {
			d.Path, d.Rule, d.Allow = p, rule, allow
			return d, true
		}
	}
	return d, false
}

// refused is a call a seccomp filter refused.
func (j *Judge) refused(ev ptrace.Event, d Denial) Denial {
	d.Rule = "seccomp: " + ev.Call
	if len(ev.Paths) > 0 {
		d.Path = ev.Paths[0]
	}
	switch ev.Call {
	case "socket", "socketpair":
		d.Address = ev.Addr
		if f, _, _ := strings.Cut(ev.Addr, " "); f != "" {
			d.Rule = "seccomp: socket " + f
		}
		if j.LandlockOnly && !j.HostNet && (ev.Args[0] == unix.AF_INET || ev.Args[0] == unix.AF_INET6) {
			d.Rule, d.Allow = "network: not allowed (--net none)", "--net host"
		}
	case "clone", "unshare", "setns":
		if ev.Errno == unix.EPERM {
			d.Allow = "--allow-userns"
		}
	}
	return d
}

// writes are the operations that change the filesystem.
var writes = map[string]bool{
	"open for write": true, "create": true, "mkdir": true, "mknod": true, "unlink": true, "rmdir": true,
	"rename": true, "link": true, "symlink": true, "truncate": true, "chmod": true, "chown": true,
	"set times": true, "set xattr": true, "remove xattr": true,
}

// entryOps make or remove a name in a directory: the directory is what a
// rule must make writable.
var entryOps = map[string]bool{"create": true, "mkdir": true, "mknod": true, "unlink": true, "rmdir": true, "rename": true, "link": true, "symlink": true}

// path judges a failed operation on p.
func (j *Judge) path(op string, ev ptrace.Event, p string) (rule, allow string, ok bool) {
	if !filepath.IsAbs(p) {
		return "", "", false
	}
	access, label, mandatory, ruled := j.Resolve(p)
	if !ruled {
		access, label = mounts.ReadOnly, j.Root
	}
	for _, w := range j.Writable {
		if paths.Within(p, w) {
			access, ruled = mounts.ReadWrite, true
		}
	}
	target := p
	if entryOps[op] || (op == "open for write" && ev.Flags&unix.O_CREAT != 0 && !exists(p)) {
		target = filepath.Dir(p)
	}
	widen := "--rw " + target
	if ruled && mandatory {
		widen = ""
	}
	switch e := ev.Errno; {
	case access == mounts.Deny && (e == unix.ENOENT || e == unix.EACCES || e == unix.EPERM || e == unix.EROFS || e == unix.ENOTDIR):
		return label, "", true
	case e == unix.EROFS && writes[op]:
		return "read-only: " + label, widen, true
	case !j.LandlockOnly || (e != unix.EACCES && e != unix.EPERM):
		return "", "", false
	case paths.Within(p, "/dev") && !ruled:
		return "landlock: /dev: only " + strings.Join(mounts.DevicePaths(), ", ") + " and the terminal", "", true
	case op == "exec" && !j.executable(p):
		return "landlock: executes only from " + strings.Join(launch.ExecDirs, ", ") + " and the rules' paths", "--ro " + filepath.Dir(p), true
	case writes[op] && access != mounts.ReadWrite:
		return "landlock: read-only: " + label, widen, true
	}
	return "", "", false
}

// executable reports whether a Landlock-only sandbox lets p execute.
func (j *Judge) executable(p string) bool {
	for _, d := range launch.ExecDirs {
		if paths.Within(p, d) {
			return true
		}
	}
	access, _, _, ruled := j.Resolve(p)
	return ruled && (access == mounts.ReadOnly || access == mounts.ReadWrite)
}

// network judges a failed connect, bind or sendto.
func (j *Judge) network(ev ptrace.Event, d Denial) (Denial, bool) {
	d.Address = ev.Addr
	switch {
	case strings.HasPrefix(ev.Addr, "/"):
		rule, _, ok := j.path("connect", ev, ev.Addr)
		d.Rule = rule
		return d, ok
	case strings.HasPrefix(ev.Addr, "@"):
		if j.LandlockOnly && ev.Errno == unix.EPERM {
			d.Rule = "landlock: abstract unix sockets outside the sandbox are out of reach"
			return d, true
		}
		return d, false
	case ev.Addr == "":
		return d, false
	}
	port := ev.Addr[strings.LastIndex(ev.Addr, ":")+1:]
	switch ev.Errno {
	case unix.ENETUNREACH:
		if j.LandlockOnly || j.HostNet {
			return d, false
		}
		if j.Filtered {
			d.Rule, d.Allow = "network: only through nsrun's proxy", "--allow-host "+ev.Addr
			return d, true
		}
		d.Rule, d.Allow = "network: not allowed (--net none)", "--net host"
		return d, true
	case unix.EACCES, unix.EPERM:
		d.Rule = "network: port not allowed"
		switch {
		case j.Filtered:
			d.Rule, d.Allow = "network: only through nsrun's proxy", "--allow-host "+ev.Addr
		case ev.Call == "bind":
			d.Allow = "--allow-bind " + port
		default:
			d.Allow = "--allow-connect " + port
		}
		return d, true
	}
	return d, false
}

// operation names what a call tried.
func operation(ev ptrace.Event) string {
	switch ev.Call {
	case "open", "openat":
		if ev.Flags&(unix.O_WRONLY|unix.O_RDWR|unix.O_CREAT|unix.O_TRUNC) != 0 {
			return "open for write"
		}
		return "open"
	case "creat":
		return "create"
	case "mkdir", "mkdirat":
		return "mkdir"
	case "mknod", "mknodat":
		return "mknod"
	case "unlink", "unlinkat":
		if ev.Call == "unlinkat" && ev.Args[2]&unix.AT_REMOVEDIR != 0 {
			return "rmdir"
		}
		return "unlink"
	case "rename", "renameat", "renameat2":
		return "rename"
	case "link", "linkat":
		return "link"
	case "symlink", "symlinkat":
		return "symlink"
	case "chmod", "fchmod", "fchmodat", "fchmodat2":
		return "chmod"
	case "chown", "lchown", "fchown", "fchownat":
		return "chown"
	case "utime", "utimes", "utimensat", "futimesat":
		return "set times"
	case "setxattr", "lsetxattr", "fsetxattr":
		return "set xattr"
	case "removexattr", "lremovexattr", "fremovexattr":
		return "remove xattr"
	case "execve", "execveat":
		return "exec"
	}
	return ev.Call
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}
