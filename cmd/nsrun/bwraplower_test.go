package main

import (
	"errors"
	"fmt"
	"io/fs"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"github.com/nsrun/nsrun"
	"github.com/nsrun/nsrun/internal/bwrap"
	"github.com/nsrun/nsrun/internal/front"
)

// fakeHost is a host of a few paths: "d" a directory, "f" a file, "c" a
// character device, "b" a block device, "s" a socket, "l:TARGET" a
// symlink.
func fakeHost(paths map[string]string) bwrapHost {
	mode := func(p string, follow bool) (fs.FileMode, error) {
		for range 8 {
			k, ok := paths[p]
			if !ok {
				return 0, &fs.PathError{Op: "stat", Path: p, Err: syscall.ENOENT}
			}
			switch {
			case k == "d":
				return fs.ModeDir | 0o755, nil
			case k == "f":
				return 0o644, nil
			case k == "c":
				return fs.ModeDevice | fs.ModeCharDevice | 0o666, nil
			case k == "b":
				return fs.ModeDevice | 0o660, nil
			case k == "s":
				return fs.ModeSocket | 0o777, nil
			case strings.HasPrefix(k, "l:"):
				if !follow {
					return fs.ModeSymlink | 0o777, nil
				}
				p = strings.TrimPrefix(k, "l:")
			}
		}
		return 0, syscall.ELOOP
	}
	return bwrapHost{
		realpath: func(p string) (string, error) {
			for range 8 {
				k, ok := paths[p]
				if !ok {
					return "", &fs.PathError{Op: "realpath", Path: p, Err: syscall.ENOENT}
				}
				t, link := strings.CutPrefix(k, "l:")
				if !link {
					return p, nil
				}
				p = t
			}
			return "", syscall.ELOOP
		},
		stat:  func(p string) (fs.FileMode, error) { return mode(p, true) },
		lstat: func(p string) (fs.FileMode, error) { return mode(p, false) },
		fdPath: func(fd int) (string, error) {
			if fd == 3 {
				return "/srv/data", nil
			}
			return "", syscall.EBADF
		},
		cwd:       "/w",
		env:       []string{"PATH=/usr/bin", "HOME=/home/u"},
		emptyRoot: func() (string, error) { return "/tmp/empty", nil },
		uid:       1000,
	}
}

var hostPaths = map[string]string{
	"/": "d", "/tmp": "d", "/run": "d", "/var": "d", "/var/run": "l:/run", "/w": "d", "/w/.git": "d",
	"/w/.git/hooks": "d", "/w/.env": "f", "/w/link": "l:/w/.env", "/home/u/.ssh": "d", "/dev/null": "c", "/dev/kvm": "c",
	"/dev/sda": "b", "/dev/shm": "d", "/sys": "d", "/srv/data": "d", "/img": "d", "/img/tmp": "d",
	"/tmp/claude-http.sock": "s", "/w/rel": "d", "/usr": "d", "/etc/passwd": "f",
	"/l1": "d", "/l2": "d", "/lk": "l:/l2", "/up": "d", "/wk": "d", "/w/l0": "d",
}

func brule(p string, a nsrun.Access) nsrun.Rule { return nsrun.Rule{Path: p, Access: a} }

func TestLowerBwrap(t *testing.T) {
	rw, ro := nsrun.ReadWrite, nsrun.ReadOnly
	hostDirs := []nsrun.Rule{brule("/tmp", ro), brule("/run", ro)}
	for _, tc := range []struct {
		name string
		argv []string
		want func(p *nsrun.Policy, r *bwrapRun)
	}{
		{"sandbox-runtime, writes restricted", []string{"--new-session", "--die-with-parent", "--unshare-net",
			"--bind", "/tmp/claude-http.sock", "/tmp/claude-http.sock", "--setenv", "HTTP_PROXY", "http://localhost:3128",
			"--ro-bind", "/", "/", "--bind", "/w", "/w", "--ro-bind", "/w/.git/hooks", "/w/.git/hooks",
			"--ro-bind", "/dev/null", "/w/.env", "--tmpfs", "/home/u/.ssh", "--dev", "/dev", "--unshare-pid",
			"--proc", "/proc", "--", "/bin/bash", "-c", "make"}, func(p *nsrun.Policy, r *bwrapRun) {
			// The socket bound before --ro-bind / / is covered by it, as in bubblewrap.
			p.Net = nsrun.NetNone
			p.Rules = append([]nsrun.Rule{brule("/w", rw), brule("/w/.git/hooks", ro), brule("/w/.env", nsrun.Deny),
				brule("/home/u/.ssh", nsrun.Tmpfs)}, hostDirs...)
			p.Proc = nsrun.ProcPrivate
			r.tty = nsrun.TTYNever
			r.env = append(r.env, "HTTP_PROXY=http://localhost:3128")
			r.args = []string{"/bin/bash", "-c", "make"}
		}},
		{"sandbox-runtime, socket after the root", []string{"--unshare-net", "--ro-bind", "/", "/",
			"--bind", "/tmp/claude-http.sock", "/tmp/claude-http.sock", "--dev", "/dev", "--unshare-pid", "--proc", "/proc", "sh"},
			func(p *nsrun.Policy, r *bwrapRun) {
				p.Net, p.Proc = nsrun.NetNone, nsrun.ProcPrivate
				p.Rules = append([]nsrun.Rule{brule("/tmp/claude-http.sock", rw)}, hostDirs...)
			}},
		{"sandbox-runtime, writes free", []string{"--bind", "/", "/", "--dev", "/dev", "sh"}, func(p *nsrun.Policy, r *bwrapRun) {
			p.Rules = []nsrun.Rule{brule("/", rw), brule("/tmp", rw), brule("/run", rw)}
			p.Proc = nsrun.ProcHost
		}},
		{"codex without --argv0", []string{"--new-session", "--die-with-parent", "--ro-bind", "/", "/", "--dev", "/dev",
			"--bind", "/w", "/w", "--ro-bind", "/w/.git", "/w/.git", "--unshare-user", "--unshare-pid", "--unshare-net",
			"--proc", "/proc", "--chdir", "/w", "--", "codex", "--apply-seccomp-then-exec", "--", "true"}, func(p *nsrun.Policy, r *bwrapRun) {
			p.Net, p.Proc = nsrun.NetNone, nsrun.ProcPrivate
			p.Rules = append([]nsrun.Rule{brule("/w", rw), brule("/w/.git", ro)}, hostDirs...)
			r.tty, r.dir = nsrun.TTYNever, "/w"
			r.args = []string{"codex", "--apply-seccomp-then-exec", "--", "true"}
		}},
		{"tmpfs root", []string{"--tmpfs", "/", "--ro-bind", "/usr", "/usr", "--symlink", "usr/bin", "/bin", "--dev", "/dev", "sh"},
			func(p *nsrun.Policy, r *bwrapRun) {
				p.Root = "/tmp/empty"
				p.Rules = []nsrun.Rule{brule("/", nsrun.Overlay), brule("/usr", ro), {Path: "/bin", Access: nsrun.Symlink, From: "usr/bin"}}
				p.Proc, p.Sys = nsrun.ProcPrivate, nsrun.SysPrivate
			}},
		{"no root at all", []string{"--proc", "/proc", "sh"}, func(p *nsrun.Policy, r *bwrapRun) {
			p.Root = "/tmp/empty"
			p.Rules = []nsrun.Rule{brule("/", nsrun.Overlay)}
			p.Proc, p.Sys = nsrun.ProcPrivate, nsrun.SysPrivate
		}},
		{"an image as the root", []string{"--ro-bind", "/img", "/", "--proc", "/proc", "sh"}, func(p *nsrun.Policy, r *bwrapRun) {
			p.Root = "/img"
			p.Rules = []nsrun.Rule{{Path: "/tmp", Access: ro, From: "/img/tmp"}}
			p.Proc, p.Sys = nsrun.ProcPrivate, nsrun.SysPrivate
		}},
		{"a later root covers what came before", []string{"--bind", "/w", "/w", "--tmpfs", "/w/x", "--ro-bind", "/", "/", "sh"},
			func(p *nsrun.Policy, r *bwrapRun) {}},
		{"the same place twice: the last wins", []string{"--ro-bind", "/", "/", "--ro-bind", "/w", "/w", "--bind", "/w", "/w", "sh"},
			func(p *nsrun.Policy, r *bwrapRun) {
				p.Rules = append([]nsrun.Rule{brule("/w", rw)}, hostDirs...)
			}},
		{"a deeper bind after a shallower one stays", []string{"--ro-bind", "/", "/", "--tmpfs", "/w", "--ro-bind", "/w/.git", "/w/.git", "sh"},
			func(p *nsrun.Policy, r *bwrapRun) {
				p.Rules = append([]nsrun.Rule{brule("/w", nsrun.Tmpfs), brule("/w/.git", ro)}, hostDirs...)
			}},
		{"remount-ro of a bind", []string{"--ro-bind", "/", "/", "--bind", "/w", "/w", "--remount-ro", "/w", "sh"},
			func(p *nsrun.Policy, r *bwrapRun) {
				p.Rules = append([]nsrun.Rule{brule("/w", ro)}, hostDirs...)
			}},
		{"bind elsewhere, relative source", []string{"--ro-bind", "/", "/", "--bind", "rel", "/srv/x", "--ro-bind", "/etc/passwd", "/w/passwd", "sh"},
			func(p *nsrun.Policy, r *bwrapRun) {
				p.Rules = append([]nsrun.Rule{{Path: "/srv/x", Access: rw, From: "/w/rel"}, {Path: "/w/passwd", Access: ro, From: "/etc/passwd"}}, hostDirs...)
			}},
		{"bind-fd", []string{"--ro-bind", "/", "/", "--ro-bind-fd", "3", "/data", "sh"}, func(p *nsrun.Policy, r *bwrapRun) {
			p.Rules = append([]nsrun.Rule{{Path: "/data", Access: ro, From: "/srv/data"}}, hostDirs...)
			r.noFDs = []int{3}
		}},
		{"try binds of missing sources are skipped", []string{"--ro-bind", "/", "/", "--bind-try", "/nope", "/nope", "--ro-bind-try", "/w", "/w", "sh"},
			func(p *nsrun.Policy, r *bwrapRun) {
				p.Rules = append([]nsrun.Rule{brule("/w", ro)}, hostDirs...)
			}},
		{"devices", []string{"--ro-bind", "/", "/", "--dev", "/dev", "--dev-bind", "/dev/kvm", "/dev/kvm", "--dev-bind-try", "/dev/sda", "/dev/disk", "sh"},
			func(p *nsrun.Policy, r *bwrapRun) {
				p.Rules = append([]nsrun.Rule{{Path: "/dev/kvm", Access: nsrun.Device, From: "/dev/kvm"},
					{Path: "/dev/disk", Access: nsrun.BlockDevice, From: "/dev/sda"}}, hostDirs...)
			}},
		{"the host's /sys", []string{"--tmpfs", "/", "--ro-bind", "/sys", "/sys", "sh"}, func(p *nsrun.Policy, r *bwrapRun) {
			p.Root = "/tmp/empty"
			p.Rules = []nsrun.Rule{brule("/", nsrun.Overlay)}
			p.Proc, p.Sys = nsrun.ProcPrivate, nsrun.SysHost
		}},
		{"tmp-overlay of a directory over itself", []string{"--ro-bind", "/", "/", "--overlay-src", "/w", "--tmp-overlay", "/w", "sh"},
			func(p *nsrun.Policy, r *bwrapRun) {
				p.Rules = append([]nsrun.Rule{brule("/w", nsrun.Overlay)}, hostDirs...)
			}},
		{"overlays of other sources, at other places", []string{"--ro-bind", "/", "/", "--overlay-src", "/l1", "--overlay-src", "/lk", "--tmp-overlay", "/t",
			"--overlay-src", "l0", "--overlay", "/up", "/wk", "/o", "--overlay-src", "/l1", "--overlay-src", "/l2", "--ro-overlay", "/r", "sh"},
			func(p *nsrun.Policy, r *bwrapRun) {
				p.Rules = append([]nsrun.Rule{{Path: "/t", Access: nsrun.Overlay, From: "/l2"}, {Path: "/o", Access: nsrun.Overlay, From: "/w/l0"},
					{Path: "/r", Access: nsrun.Overlay, From: "/l2"}}, hostDirs...)
			}},
		{"dir and symlink, repeated", []string{"--ro-bind", "/", "/", "--tmpfs", "/t", "--dir", "/t", "--dir", "/t/d", "--dir", "/t/d",
			"--symlink", "d", "/t/l", "--symlink", "d", "/t/l", "sh"}, func(p *nsrun.Policy, r *bwrapRun) {
			p.Rules = append([]nsrun.Rule{brule("/t", nsrun.Tmpfs), brule("/t/d", nsrun.Directory), {Path: "/t/l", Access: nsrun.Symlink, From: "d"}}, hostDirs...)
		}},
		{"process settings", []string{"--unshare-all", "--share-net", "--uid", "5", "--gid", "6", "--hostname", "h", "--cap-drop", "ALL",
			"--chdir", "rel", "--clearenv", "--setenv", "A", "1", "--ro-bind", "/", "/", "--sync-fd", "7", "--block-fd", "8", "--args", "9", "sh"},
			func(p *nsrun.Policy, r *bwrapRun) {
				uid, gid := 5, 6
				p.UID, p.GID, p.Hostname = &uid, &gid, "h"
				p.Rules = hostDirs
				r.env, r.dir = []string{"A=1"}, "/rel"
				r.noFDs = []int{9, 7, 8}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := lowerArgs(tc.argv, fakeHost(hostPaths))
			if err != nil {
				t.Fatal(err)
			}
			want := &bwrapRun{policy: &nsrun.Policy{Net: nsrun.NetHost, Proc: nsrun.ProcHost, Sys: nsrun.SysHost},
				args: []string{"sh"}, env: []string{"PATH=/usr/bin", "HOME=/home/u"}, tty: nsrun.TTYAuto}
			tc.want(want.policy, want)
			if len(want.policy.Rules) == 0 {
				want.policy.Rules = hostDirs
			}
			got.front = front.Settings{} // TestBwrapFrontSettings
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("\n got %+v\n     %+v\nwant %+v\n     %+v", got, got.policy, want, want.policy)
			}
		})
	}
}

// lowerArgs parses, checks (as root) and lowers argv; --args data is empty.
func lowerArgs(argv []string, h bwrapHost) (*bwrapRun, error) {
	a, err := bwrap.Parse(argv, func(int) ([]byte, error) { return nil, nil })
	if err != nil {
		return nil, err
	}
	ns, err := a.Check(bwrap.Host{})
	if err != nil {
		return nil, err
	}
	return lowerBwrap(a, ns, h)
}

func TestLowerBwrapRefuses(t *testing.T) {
	for _, tc := range []struct {
		argv []string
		want string // the start of the message
	}{
		{[]string{"--argv0", "", "--ro-bind", "/", "/", "sh"}, "--argv0 '' is not supported"},
		{[]string{"--seccomp", "3", "sh"}, "--seccomp is not supported"},
		{[]string{"--add-seccomp-fd", "3", "sh"}, "--add-seccomp-fd is not supported"},
		{[]string{"--pidns", "3", "sh"}, "--pidns is not supported"},
		{[]string{"--exec-label", "x", "sh"}, "--exec-label is not supported"},
		{[]string{"--perms", "0700", "--dir", "/w/d", "sh"}, "--perms is not supported"},
		{[]string{"--chmod", "0755", "/w", "sh"}, "--chmod is not supported"},
		{[]string{"--mqueue", "/dev/mqueue", "sh"}, "--mqueue is not supported"},
		{[]string{"--overlay-src", "/", "--tmp-overlay", "/", "sh"}, "--tmp-overlay / is not supported"},
		{[]string{"--overlay-src", "/l1", "--overlay-src", "/l2", "--ro-overlay", "/", "sh"}, "--ro-overlay / is not supported"},
		{[]string{"--ro-bind", "/", "/", "--overlay-src", "/l1", "--tmp-overlay", "/dev/x", "sh"}, "--tmp-overlay /dev/x is not supported"},
		{[]string{"--ro-bind", "/", "/", "--overlay-src", "/l1", "--overlay", "/up", "/wk", "/proc/x", "sh"}, "--overlay /up /wk /proc/x is not supported"},
		{[]string{"--ro-bind", "/", "/", "--overlay-src", "/nope", "--tmp-overlay", "/t", "sh"}, "Can't find source path /nope: No such file or directory"},
		{[]string{"--ro-bind", "/", "/", "--overlay-src", "/l1", "--overlay", "/up", "/nowork", "/t", "sh"}, "Can't find source path /nowork: No such file or directory"},
		{[]string{"--ro-bind", "/", "/", "--overlay-src", "/l1", "--overlay", "nope", "/wk", "/t", "sh"}, "Can't find source path nope: No such file or directory"},
		{[]string{"--dev-bind", "/", "/", "sh"}, "--dev-bind / / is not supported"},
		{[]string{"--ro-bind", "/", "/", "--dev-bind", "/w", "/w", "sh"}, "--dev-bind /w /w is not supported"},
		{[]string{"--ro-bind", "/", "/", "--dev", "/dev", "--bind", "/dev/shm", "/dev/shm", "sh"}, "--bind /dev/shm /dev/shm is not supported"},
		{[]string{"--ro-bind", "/", "/", "--bind", "/sys", "/sys", "sh"}, "--bind /sys /sys is not supported"},
		{[]string{"--ro-bind", "/", "/", "--tmpfs", "/dev/shm", "sh"}, "--tmpfs /dev/shm is not supported"},
		{[]string{"--ro-bind", "/", "/", "--proc", "/w/proc", "sh"}, "--proc /w/proc is not supported"},
		{[]string{"--ro-bind", "/", "/", "--dev", "/w/dev", "sh"}, "--dev /w/dev is not supported"},
		{[]string{"--ro-bind", "/", "/", "--remount-ro", "/w", "sh"}, "--remount-ro /w is not supported"},
		{[]string{"--ro-bind", "/", "/", "--dir", "/w/d", "--remount-ro", "/w/d", "sh"}, "--remount-ro /w/d is not supported"},
		{[]string{"--ro-bind", "/", "/", "--ro-bind", "/dev/null", "/w/missing", "sh"}, "--ro-bind /dev/null /w/missing is not supported"},
		{[]string{"--ro-bind", "/", "/", "--ro-bind", "/dev/null", "/w", "sh"}, "--ro-bind /dev/null /w is not supported"},
		{[]string{"--ro-bind", "/", "/", "--ro-bind", "/dev/null", "/w/link", "sh"}, "Can't mount on symlink destination /w/link"},
		{[]string{"--ro-bind", "/", "/", "--bind", "/nope", "/nope", "sh"}, "Can't find source path /nope: No such file or directory"},
		{[]string{"--ro-bind", "/", "/", "--bind-fd", "4", "/x", "sh"}, "Can't find source path /proc/self/fd/4: Bad file descriptor"},
		{[]string{"--ro-bind", "/", "/", "--symlink", "a", "/l", "--symlink", "b", "/l", "sh"}, "Can't make symlink at /l: existing destination is a"},
		{[]string{"--ro-bind", "/", "/", "--symlink", "a", "/l", "--tmpfs", "/l", "sh"}, "Can't mount on symlink destination /l"},
	} {
		t.Run(strings.Join(tc.argv, " "), func(t *testing.T) {
			_, err := lowerArgs(tc.argv, fakeHost(hostPaths))
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("lowerBwrap(%q) = %v, want %q...", tc.argv, err, tc.want)
			}
			var r *refusal
			var f *bwrapFailure
			if !errors.As(err, &r) && !errors.As(err, &f) {
				t.Fatalf("error %T, want a refusal or a bubblewrap failure", err)
			}
		})
	}
}

func TestLowerBwrapLayerSwitches(t *testing.T) {
	h := fakeHost(hostPaths)
	h.noSeccomp, h.noLandlock = true, true
	r, err := lowerArgs([]string{"--ro-bind", "/", "/", "sh"}, h)
	if err != nil {
		t.Fatal(err)
	}
	if r.policy.Seccomp != "off" || r.policy.Landlock != nsrun.LandlockOff {
		t.Fatalf("policy %+v, want seccomp and Landlock off", r.policy)
	}
	if r.policy.AllowUserns {
		t.Errorf("both layers off: nested user namespaces allowed by nsrun's (absent) seccomp filter")
	}
	// Landlock off alone: bubblewrap's meaning, nested user namespaces
	// allowed unless --disable-userns (or --assert-userns-disabled).
	noLL := fakeHost(hostPaths)
	noLL.noLandlock = true
	for _, c := range []struct {
		opts []string
		want bool
	}{{nil, true}, {[]string{"--unshare-user", "--disable-userns"}, false}, {[]string{"--unshare-user", "--assert-userns-disabled"}, false}} {
		r, err := lowerArgs(append(c.opts, "--ro-bind", "/", "/", "sh"), noLL)
		if err != nil || r.policy.AllowUserns != c.want {
			t.Errorf("Landlock off, %q: allow user namespaces %v (%v), want %v", c.opts, r != nil && r.policy.AllowUserns, err, c.want)
		}
	}
	if r, err := lowerArgs([]string{"--ro-bind", "/", "/", "sh"}, fakeHost(hostPaths)); err != nil || r.policy.AllowUserns {
		t.Errorf("all layers on: allow user namespaces (%v)", err)
	}
	for _, opt := range []string{"--disable-userns", "--assert-userns-disabled"} {
		if _, err := lowerArgs([]string{"--unshare-user", opt, "--ro-bind", "/", "/", "sh"}, h); err == nil {
			t.Errorf("%s with nsrun's seccomp off: no error", opt)
		}
		if _, err := lowerArgs([]string{"--unshare-user", opt, "--ro-bind", "/", "/", "sh"}, fakeHost(hostPaths)); err != nil {
			t.Errorf("%s: %v", opt, err)
		}
	}
}

func TestEditEnv(t *testing.T) {
	env := []string{"A=1", "B=2", "A=3"}
	for _, tc := range []struct {
		edits []bwrap.EnvOp
		want  []string
	}{
		{nil, env},
		{[]bwrap.EnvOp{{Kind: bwrap.SetEnv, Name: "A", Value: "x"}}, []string{"B=2", "A=x"}},
		{[]bwrap.EnvOp{{Kind: bwrap.UnsetEnv, Name: "A"}}, []string{"B=2"}},
		{[]bwrap.EnvOp{{Kind: bwrap.ClearEnv}, {Kind: bwrap.SetEnv, Name: "C", Value: ""}}, []string{"C="}},
		{[]bwrap.EnvOp{{Kind: bwrap.SetEnv, Name: "C", Value: "1"}, {Kind: bwrap.ClearEnv}}, []string{}},
	} {
		if got := editEnv(env, tc.edits); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("editEnv(%v) = %q, want %q", tc.edits, got, tc.want)
		}
	}
	if !reflect.DeepEqual(env, []string{"A=1", "B=2", "A=3"}) {
		t.Errorf("editEnv changed its input: %q", env)
	}
}

// TestBwrapFrontSettings holds bubblewrap's process settings that go
// beyond the policy: argv[0], the capabilities (a root caller's own, in
// its bounding set unless in a user namespace of bubblewrap's; --cap-add
// and --cap-drop in order, then kept across execve), /dev/core with --dev.
func TestBwrapFrontSettings(t *testing.T) {
	const callerCaps, callerBounding = 0xff, 0xfff
	for _, tc := range []struct {
		name string
		uid  int
		argv []string
		want front.Settings
	}{
		{"user", 1000, []string{"--ro-bind", "/", "/", "sh"}, front.Settings{}},
		{"user, argv0", 1000, []string{"--argv0", "x", "--ro-bind", "/", "/", "sh"}, front.Settings{Argv0: "x"}},
		{"user, --dev", 1000, []string{"--ro-bind", "/", "/", "--dev", "/dev", "sh"}, front.Settings{DevCore: true}},
		{"user, --perms and --size of a tmpfs", 1000, []string{"--ro-bind", "/", "/", "--perms", "1777", "--size", "4096", "--tmpfs", "/w", "--tmpfs", "/t", "sh"},
			front.Settings{Tmpfs: []front.Tmpfs{{Path: "/w", Mode: 0o1777, Size: 4096}}}},
		{"user, Codex's read-only tmpfs", 1000, []string{"--ro-bind", "/", "/", "--perms", "555", "--tmpfs", "/w", "--remount-ro", "/w", "sh"},
			front.Settings{Tmpfs: []front.Tmpfs{{Path: "/w", Mode: 0o555, ReadOnly: true}}}},
		{"user, files from descriptors", 1000, []string{"--ro-bind", "/", "/", "--tmpfs", "/t", "--file", "5", "/t/a", "--perms", "0640", "--bind-data", "5", "/t/b", "--ro-bind-data", "5", "/t/c", "sh"},
			front.Settings{Files: []front.File{{Path: "/t/a", Content: "data", Mode: 0o666}, {Path: "/t/b", Content: "data", Mode: 0o640},
				{Path: "/t/c", Content: "data", Mode: 0o600, ReadOnly: true}}}},
		{"user, one source tmp-overlay", 1000, []string{"--ro-bind", "/", "/", "--overlay-src", "/l1", "--tmp-overlay", "/t", "sh"}, front.Settings{}},
		{"user, overlays", 1000, []string{"--ro-bind", "/", "/", "--overlay-src", "/l1", "--overlay-src", "/w/l0", "--overlay-src", "/lk", "--tmp-overlay", "/t",
			"--overlay-src", "/l1", "--overlay", "/up", "/wk", "/o", "--overlay-src", "/l1", "--overlay-src", "/l2", "--ro-overlay", "/r", "sh"},
			front.Settings{Overlays: []front.Overlay{{Path: "/t", Lower: []string{"/w/l0", "/l1"}}, {Path: "/o", Upper: "/up", Work: "/wk"},
				{Path: "/r", Lower: []string{"/l1"}, ReadOnly: true}}}},
		{"user, --dev covered", 1000, []string{"--ro-bind", "/", "/", "--dev", "/dev", "--ro-bind", "/", "/", "sh"}, front.Settings{}},
		{"user, --cap-add", 1000, []string{"--cap-add", "cap_kill", "--cap-add", "5", "sh"},
			front.Settings{Caps: &front.Caps{Keep: 1 << 5, Bounding: 1 << 5, Ambient: true}}},
		{"user, --cap-add ALL --cap-drop", 1000, []string{"--cap-add", "ALL", "--cap-drop", "CAP_CHOWN", "sh"},
			front.Settings{Caps: &front.Caps{Keep: ^uint64(1), Bounding: ^uint64(1), Ambient: true}}},
		{"root", 0, []string{"sh"}, front.Settings{Caps: &front.Caps{Keep: callerCaps, Bounding: callerBounding}}},
		{"root, user namespace", 0, []string{"--unshare-user", "sh"}, front.Settings{Caps: &front.Caps{Keep: callerCaps, Bounding: callerCaps}}},
		{"root, --cap-drop", 0, []string{"--cap-drop", "CAP_CHOWN", "--cap-drop", "CAP_KILL", "sh"},
			front.Settings{Caps: &front.Caps{Keep: callerCaps &^ (1 | 1<<5), Bounding: callerBounding, Ambient: true}}},
		{"root, --cap-drop ALL", 0, []string{"--cap-drop", "ALL", "sh"},
			front.Settings{Caps: &front.Caps{Bounding: callerBounding, Ambient: true}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := fakeHost(hostPaths)
			h.uid, h.caps, h.bounding = tc.uid, callerCaps, callerBounding
			h.readFD = func(fd int) ([]byte, error) {
				if fd != 5 {
					return nil, syscall.EBADF
				}
				return []byte("data"), nil
			}
			a, err := bwrap.Parse(tc.argv, func(int) ([]byte, error) { return nil, nil })
			if err != nil {
				t.Fatal(err)
			}
			ns, err := a.Check(bwrap.Host{UID: tc.uid})
			if err != nil {
				t.Fatal(err)
			}
			run, err := lowerBwrap(a, ns, h)
			if err != nil {
				t.Fatal(err)
			}
			tc.want.NoSandboxEnv = true
			if !reflect.DeepEqual(run.front, tc.want) {
				t.Fatalf("front settings\n got %+v (caps %+v)\nwant %+v (caps %+v)", run.front, run.front.Caps, tc.want, tc.want.Caps)
			}
		})
	}
}

// TestMakeOnHost holds what bubblewrap's operations make on the host
// through a writable bind, in order, and what they leave to the policy.
func TestMakeOnHost(t *testing.T) {
	var did []string
	h := fakeHost(map[string]string{"/": "d", "/w": "d", "/w/f": "f", "/w/l": "l:/etc", "/etc": "d", "/w/sym": "l:/dev/null"})
	h.maker = &hostMaker{
		mkdir: func(_, p string, mode fs.FileMode) error {
			if _, err := h.lstat(p); err == nil {
				return fs.ErrExist
			}
			did = append(did, fmt.Sprintf("mkdir %s %#o", p, mode))
			return nil
		},
		mkfile: func(_, p string, mode fs.FileMode) error {
			did = append(did, fmt.Sprintf("mkfile %s %#o", p, mode))
			return nil
		},
		symlink: func(_, target, p string) error {
			if _, err := h.lstat(p); err == nil {
				return fs.ErrExist
			}
			did = append(did, "symlink "+target+" "+p)
			return nil
		},
		readlink: func(_, p string) (string, error) { return "/dev/null", nil },
		chmod: func(_, p string, mode fs.FileMode) error {
			did = append(did, fmt.Sprintf("chmod %s %#o", p, mode))
			return nil
		},
	}
	for _, tc := range []struct {
		argv []string
		did  []string
		err  string
	}{
		{[]string{"--ro-bind", "/", "/", "--bind", "/w", "/w", "--perms", "0750", "--dir", "/w/a/b", "--chmod", "0700", "/w/f",
			"--symlink", "x", "/w/s", "--ro-bind", "/w/f", "/w/m", "--ro-bind", "/w", "/w/n", "sh"},
			[]string{"mkdir /w/a 0750", "mkdir /w/a/b 0750", "chmod /w/f 0700", "symlink x /w/s", "mkfile /w/m 0444", "mkdir /w/n 0755"}, ""},
		{[]string{"--ro-bind", "/", "/", "--dir", "/w/x", "sh"}, nil, ""}, // read-only: left to the plan
		{[]string{"--bind", "/", "/", "--symlink", "/dev/null", "/w/sym", "sh"}, nil, ""},
		{[]string{"--bind", "/", "/", "--symlink", "/dev/full", "/w/sym", "sh"}, nil, "Can't make symlink at /w/sym: existing destination is /dev/null"},
		{[]string{"--bind", "/", "/", "--dir", "/w/l/x", "sh"}, nil, "--dir /w/l/x is not supported"},
	} {
		did = nil
		_, err := lowerArgs(tc.argv, h)
		if (err == nil) != (tc.err == "") || (err != nil && !strings.HasPrefix(err.Error(), tc.err)) {
			t.Errorf("%q: error %v, want %q", tc.argv, err, tc.err)
		}
		if !reflect.DeepEqual(did, tc.did) {
			t.Errorf("%q: did %q, want %q", tc.argv, did, tc.did)
		}
	}
}
