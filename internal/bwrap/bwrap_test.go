package bwrap

import (
	"errors"
	"reflect"
	"strings"
	"syscall"
	"testing"
)

// files serves --args from a map of descriptor to data; a missing one is
// EBADF.
func files(m map[int]string) ReadFunc {
	return func(fd int) ([]byte, error) {
		d, ok := m[fd]
		if !ok {
			return nil, syscall.EBADF
		}
		return []byte(d), nil
	}
}

func op(k Kind, opt, src, dst string) Op {
	o := newOp(k, opt)
	o.Source, o.Dest = src, dst
	return o
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		argv []string
		args map[int]string
		want string
	}{
		{[]string{"--bind", "/a"}, nil, "--bind takes two arguments"},
		{[]string{"--bind-try", "/a"}, nil, "--bind-try takes two arguments"},
		{[]string{"--ro-bind"}, nil, "--ro-bind takes two arguments"},
		{[]string{"--ro-bind-try", "a"}, nil, "--ro-bind-try takes two arguments"},
		{[]string{"--dev-bind", "a"}, nil, "--dev-bind takes two arguments"},
		{[]string{"--dev-bind-try"}, nil, "--dev-bind-try takes two arguments"},
		{[]string{"--ro-bind-fd", "3"}, nil, "--bind-fd takes two arguments"},
		{[]string{"--bind-fd", "x", "/d"}, nil, "Invalid fd: x"},
		{[]string{"--bind-fd", "-1", "/d"}, nil, "Invalid fd: -1"},
		{[]string{"--bind-fd", "", "/d"}, nil, "Invalid fd: "},
		{[]string{"--bind-fd", "3x", "/d"}, nil, "Invalid fd: 3x"},
		{[]string{"--symlink", "t"}, nil, "--symlink takes two arguments"},
		{[]string{"--setenv", "A"}, nil, "--setenv takes two arguments"},
		{[]string{"--setenv", "A=B", "x", "true"}, nil, "setenv failed"},
		{[]string{"--setenv", "", "x", "true"}, nil, "setenv failed"},
		{[]string{"--unsetenv", "A=B", "true"}, nil, "unsetenv failed"},
		{[]string{"--unsetenv"}, nil, "--unsetenv takes an argument"},
		{[]string{"--overlay", "a", "b"}, nil, "--overlay takes three arguments"},
		{[]string{"--overlay", "a", "b", "c"}, nil, "--overlay requires at least one --overlay-src"},
		{[]string{"--tmp-overlay", "/d"}, nil, "--tmp-overlay requires at least one --overlay-src"},
		{[]string{"--overlay-src", "a", "--ro-overlay", "/d"}, nil, "--ro-overlay requires at least two --overlay-src"},
		{[]string{"--overlay-src", "a", "--tmpfs", "/d"}, nil, "--overlay-src must be followed by another --overlay-src or one of --overlay, --tmp-overlay, or --ro-overlay"},
		{[]string{"--overlay-src", "a", "true"}, nil, "--overlay-src must be followed by another --overlay-src or one of --overlay, --tmp-overlay, or --ro-overlay"},
		{[]string{"--overlay-src"}, nil, "--overlay-src must be followed by another --overlay-src or one of --overlay, --tmp-overlay, or --ro-overlay"},
		{[]string{"--tmp-overlay"}, nil, "--tmp-overlay takes an argument"},
		{[]string{"--ro-overlay"}, nil, "--ro-overlay takes an argument"},
		{[]string{"--argv0"}, nil, "--argv0 takes one argument"},
		{[]string{"--argv0", "a", "--argv0", "b", "true"}, nil, "--argv0 used multiple times"},
		{[]string{"--chdir"}, nil, "--chdir takes one argument"},
		{[]string{"--remount-ro"}, nil, "--remount-ro takes one argument"},
		{[]string{"--proc"}, nil, "--proc takes an argument"},
		{[]string{"--dev"}, nil, "--dev takes an argument"},
		{[]string{"--tmpfs"}, nil, "--tmpfs takes an argument"},
		{[]string{"--mqueue"}, nil, "--mqueue takes an argument"},
		{[]string{"--dir"}, nil, "--dir takes an argument"},
		{[]string{"--file", "3"}, nil, "--file takes two arguments"},
		{[]string{"--bind-data", "3"}, nil, "--bind-data takes two arguments"},
		{[]string{"--ro-bind-data", "3"}, nil, "--ro-bind-data takes two arguments"},
		{[]string{"--ro-bind-data", "z", "/f"}, nil, "Invalid fd: z"},
		{[]string{"--lock-file"}, nil, "--lock-file takes an argument"},
		{[]string{"--sync-fd"}, nil, "--sync-fd takes an argument"},
		{[]string{"--block-fd", "q"}, nil, "Invalid fd: q"},
		{[]string{"--userns-block-fd"}, nil, "--userns-block-fd takes an argument"},
		{[]string{"--info-fd"}, nil, "--info-fd takes an argument"},
		{[]string{"--json-status-fd"}, nil, "--json-status-fd takes an argument"},
		{[]string{"--seccomp"}, nil, "--seccomp takes an argument"},
		{[]string{"--add-seccomp-fd", "3", "--seccomp", "4"}, nil, "--seccomp cannot be combined with --add-seccomp-fd"},
		{[]string{"--seccomp", "4", "--add-seccomp-fd", "3"}, nil, "--add-seccomp-fd cannot be combined with --seccomp"},
		{[]string{"--userns"}, nil, "--userns takes an argument"},
		{[]string{"--userns2"}, nil, "--userns2 takes an argument"},
		{[]string{"--pidns"}, nil, "--pidns takes an argument"},
		{[]string{"--uid"}, nil, "--uid takes an argument"},
		{[]string{"--uid", "-1"}, nil, "Invalid uid: -1"},
		{[]string{"--uid", "4294967295"}, nil, "Invalid uid: 4294967295"},
		{[]string{"--gid", "g"}, nil, "Invalid gid: g"},
		{[]string{"--hostname"}, nil, "--hostname takes an argument"},
		{[]string{"--cap-add"}, nil, "--cap-add takes an argument"},
		{[]string{"--cap-drop", "CAP_NOPE"}, nil, "unknown cap: CAP_NOPE"},
		{[]string{"--cap-add", "chown"}, nil, "unknown cap: chown"},
		{[]string{"--perms"}, nil, "--perms takes an argument"},
		{[]string{"--perms", "8", "--dir", "/d"}, nil, "--perms takes an octal argument <= 07777"},
		{[]string{"--perms", "17777", "--dir", "/d"}, nil, "--perms takes an octal argument <= 07777"},
		{[]string{"--perms", "-1", "--dir", "/d"}, nil, "--perms takes an octal argument <= 07777"},
		{[]string{"--perms", "", "--dir", "/d"}, nil, "--perms takes an octal argument <= 07777"},
		{[]string{"--perms", "0700", "--perms", "0700", "--dir", "/d"}, nil, "--perms given twice for the same action"},
		{[]string{"--perms", "0700", "--bind", "/a", "/b"}, nil, "--perms must be followed by an option that creates a file"},
		{[]string{"--perms", "0700", "--size", "1", "--tmpfs", "/a", "--dir", "/b", "--size", "1", "--dir", "/c"}, nil, "--size must be followed by --tmpfs"},
		{[]string{"--size"}, nil, "--size takes an argument"},
		{[]string{"--size", "0", "--tmpfs", "/t"}, nil, "--size takes a non-zero number of bytes"},
		{[]string{"--size", "-1", "--tmpfs", "/t"}, nil, "--size takes a non-zero number of bytes"},
		{[]string{"--size", " 1", "--tmpfs", "/t"}, nil, "--size takes a non-zero number of bytes"},
		{[]string{"--size", "1k", "--tmpfs", "/t"}, nil, "--size takes a non-zero number of bytes"},
		{[]string{"--size", "99999999999999999999", "--tmpfs", "/t"}, nil, "--size takes a non-zero number of bytes"},
		{[]string{"--size", "0x8000000000000000", "--tmpfs", "/t"}, nil, "--size (for tmpfs) is limited to 9223372036854775807"},
		{[]string{"--size", "1", "--size", "2", "--tmpfs", "/t"}, nil, "--size given twice for the same action"},
		{[]string{"--size", "1", "--dir", "/t"}, nil, "--size must be followed by --tmpfs"},
		{[]string{"--chmod", "0700"}, nil, "--chmod takes two arguments"},
		{[]string{"--chmod", "9", "/p"}, nil, "--chmod takes an octal argument <= 07777"},
		{[]string{"--exec-label"}, nil, "--exec-label takes an argument"},
		{[]string{"--file-label"}, nil, "--file-label takes an argument"},
		{[]string{"--foo", "true"}, nil, "Unknown option --foo"},
		{[]string{"-", "true"}, nil, "Unknown option -"},
		{[]string{"-v"}, nil, "Unknown option -v"},
		{[]string{"--debug-opt=nope"}, nil, "Unknown --debug-opt value: nope"},
		{[]string{"--args"}, nil, "--args takes an argument"},
		{[]string{"--args", "x"}, nil, "Invalid fd: x"},
		{[]string{"--args", "9", "true"}, nil, "Can't read --args data: Bad file descriptor"},
		{[]string{"--args", "3", "true"}, map[int]string{3: "--args\x004\x00"}, "--args not supported in arguments file"},
		{[]string{"--args", "3", "true"}, map[int]string{3: "--bind\x00/a\x00"}, "--bind takes two arguments"},
		// A modifier pending at the end of a file is checked after --args.
		{[]string{"--args", "3", "--tmpfs", "/t", "true"}, map[int]string{3: "--perms\x000700\x00"}, "--perms must be followed by an option that creates a file"},
		{[]string{"--args", "3", "true"}, map[int]string{3: strings.Repeat("--unshare-pid\x00", 9000)}, "Exceeded maximum number of arguments 9000"},
	} {
		t.Run(strings.Join(tc.argv, " "), func(t *testing.T) {
			_, err := Parse(tc.argv, files(tc.args))
			var be *Error
			if !errors.As(err, &be) || be.Msg != tc.want {
				t.Fatalf("Parse(%q) = %v, want %q", tc.argv, err, tc.want)
			}
		})
	}
}

func TestParse(t *testing.T) {
	base := func() *Args {
		a, _ := Parse([]string{"true"}, nil)
		a.Command = nil
		return a
	}
	for _, tc := range []struct {
		name string
		argv []string
		args map[int]string
		want func(a *Args)
	}{
		{"command only", []string{"true", "--bind"}, nil, func(a *Args) {
			a.Command = []string{"true", "--bind"}
		}},
		{"double dash", []string{"--", "--dev-bind", "/dev", "/dev"}, nil, func(a *Args) {
			a.Command = []string{"--dev-bind", "/dev", "/dev"}
		}},
		{"empty word starts the command", []string{"", "x"}, nil, func(a *Args) {
			a.Command = []string{"", "x"}
		}},
		{"sandbox-runtime", []string{"--new-session", "--die-with-parent", "--unshare-net",
			"--ro-bind", "/", "/", "--bind", "/w", "/w", "--ro-bind", "/w/.git/hooks", "/w/.git/hooks",
			"--ro-bind", "/dev/null", "/w/.env", "--tmpfs", "/home/u/.ssh", "--dev", "/dev",
			"--unshare-pid", "--proc", "/proc", "--", "/bin/bash", "-c", "make"}, nil, func(a *Args) {
			a.NewSession, a.DieWithParent = true, true
			a.Unshare.Net, a.Unshare.PID = true, true
			tmp := op(Tmpfs, "--tmpfs", "", "/home/u/.ssh")
			tmp.Perms = 0o755
			a.Ops = []Op{op(ROBind, "--ro-bind", "/", "/"), op(Bind, "--bind", "/w", "/w"),
				op(ROBind, "--ro-bind", "/w/.git/hooks", "/w/.git/hooks"),
				op(ROBind, "--ro-bind", "/dev/null", "/w/.env"), tmp,
				op(Dev, "--dev", "", "/dev"), op(Proc, "--proc", "", "/proc")}
			a.Command = []string{"/bin/bash", "-c", "make"}
		}},
		{"try variants", []string{"--bind-try", "a", "b", "--ro-bind-try", "c", "d", "--dev-bind-try", "e", "f", "x"}, nil, func(a *Args) {
			b, r, d := op(Bind, "--bind-try", "a", "b"), op(ROBind, "--ro-bind-try", "c", "d"), op(DevBind, "--dev-bind-try", "e", "f")
			b.Try, r.Try, d.Try = true, true, true
			a.Ops = []Op{b, r, d}
			a.Command = []string{"x"}
		}},
		{"bind-fd", []string{"--ro-bind-fd", "+7", "/d", "--bind-fd", " 8", "/e", "x"}, nil, func(a *Args) {
			r, b := op(ROBind, "--ro-bind-fd", "/proc/self/fd/7", "/d"), op(Bind, "--bind-fd", "/proc/self/fd/8", "/e")
			r.FD, b.FD = 7, 8
			a.Ops = []Op{r, b}
			a.Command = []string{"x"}
		}},
		{"perms and size", []string{"--perms", "555", "--size", "0x1000", "--tmpfs", "/t", "--remount-ro", "/t",
			"--perms", "0", "--ro-bind-data", "3", "/f", "--file", "4", "/g", "--dir", "/d", "--chmod", "0644", "/g", "x"}, nil, func(a *Args) {
			t := op(Tmpfs, "--tmpfs", "", "/t")
			t.Perms, t.Size = 0o555, 0x1000
			rb := op(ROBindData, "--ro-bind-data", "", "/f")
			rb.FD, rb.Perms = 3, 0
			f := op(File, "--file", "", "/g")
			f.FD, f.Perms = 4, 0o666
			d := op(Dir, "--dir", "", "/d")
			d.Perms = 0o755
			c := op(Chmod, "--chmod", "", "/g")
			c.Perms = 0o644
			a.Ops = []Op{t, op(RemountRO, "--remount-ro", "", "/t"), rb, f, d, c}
			a.Command = []string{"x"}
		}},
		{"overlays", []string{"--overlay-src", "l1", "--overlay-src", "l2", "--overlay", "u", "w", "/o",
			"--overlay-src", "l", "--tmp-overlay", "/t", "--overlay-src", "a", "--overlay-src", "b", "--ro-overlay", "/r", "x"}, nil, func(a *Args) {
			o := op(Overlay, "--overlay", "u", "/o")
			o.Workdir, o.Sources = "w", []string{"l1", "l2"}
			t := op(TmpOverlay, "--tmp-overlay", "", "/t")
			t.Sources = []string{"l"}
			r := op(ROOverlay, "--ro-overlay", "", "/r")
			r.Sources = []string{"a", "b"}
			a.Ops = []Op{o, t, r}
			a.Command = []string{"x"}
		}},
		{"namespaces", []string{"--unshare-all", "--share-net", "--unshare-user", "--unshare-cgroup", "x"}, nil, func(a *Args) {
			a.Unshare = Namespaces{User: true, UserTry: true, IPC: true, PID: true, UTS: true, Cgroup: true, CgroupTry: true}
			a.Command = []string{"x"}
		}},
		{"share-net then unshare-net", []string{"--share-net", "--unshare-net", "x"}, nil, func(a *Args) {
			a.Unshare.Net = true
			a.Command = []string{"x"}
		}},
		{"process settings", []string{"--uid", "0", "--gid", "5", "--hostname", "h", "--chdir", "/a", "--chdir", "/b",
			"--argv0", "z", "--as-pid-1", "--cap-drop", "ALL", "--cap-add", "CAP_net_raw", "--cap-drop", "12",
			"--disable-userns", "--assert-userns-disabled", "--level-prefix", "--not-a-security-boundary",
			"--lock-file", "/l", "--sync-fd", "3", "--sync-fd", "4", "--block-fd", "5", "--info-fd", "6",
			"--json-status-fd", "7", "--add-seccomp-fd", "8", "--add-seccomp-fd", "9", "--userns", "10", "--userns2", "11",
			"--pidns", "12", "--userns-block-fd", "13", "--exec-label", "e", "--file-label", "f",
			"--debug-opt=force-openat-fallback", "x"}, nil, func(a *Args) {
			a.UID, a.GID = 0, 5
			a.Hostname, a.HostnameSet = "h", true
			a.Chdir, a.ChdirSet = "/b", true
			a.Argv0, a.Argv0Set = "z", true
			a.AsPid1 = true
			a.Caps = []CapOp{{false, "ALL"}, {true, "CAP_net_raw"}, {false, "12"}}
			a.DisableUserns, a.AssertUsernsDisabled, a.LevelPrefix, a.NotASecurityBoundary = true, true, true, true
			a.LockFiles = []string{"/l"}
			a.SyncFD, a.BlockFD, a.InfoFD, a.JSONStatusFD = 4, 5, 6, 7
			a.AddSeccompFDs = []int{8, 9}
			a.UsernsFD, a.Userns2FD, a.PidnsFD, a.UsernsBlockFD = 10, 11, 12, 13
			a.ExecLabel, a.FileLabel = "e", "f"
			a.DebugOpts = []string{"force-openat-fallback"}
			a.Warnings = []string{"Only the last --chdir option will take effect", "Only the last --sync-fd option will take effect"}
			a.Command = []string{"x"}
		}},
		{"environment in order", []string{"--setenv", "A", "1", "--unsetenv", "B", "--clearenv", "--setenv", "C", "", "x"}, nil, func(a *Args) {
			a.Env = []EnvOp{{SetEnv, "A", "1"}, {UnsetEnv, "B", ""}, {ClearEnv, "", ""}, {SetEnv, "C", ""}}
			a.Command = []string{"x"}
		}},
		{"warnings for repeated settings", []string{"--uid", "1", "--uid", "2", "--gid", "1", "--gid", "2", "--hostname", "a", "--hostname", "b",
			"--seccomp", "3", "--seccomp", "4", "--userns", "1", "--userns", "2", "x"}, nil, func(a *Args) {
			a.UID, a.GID, a.Hostname, a.HostnameSet, a.SeccompFD, a.UsernsFD = 2, 2, "b", true, 4, 2
			a.Warnings = []string{"Only the last --uid option will take effect", "Only the last --gid option will take effect",
				"Only the last --hostname option will take effect", "Only the last --seccomp option will take effect",
				"Only the last --userns option will take effect"}
			a.Command = []string{"x"}
		}},
		{"args files in place", []string{"--args", "3", "--args", "4", "--dir", "/c", "sh"},
			map[int]string{3: "--dir\x00/a\x00", 4: "--dir\x00/b"}, func(a *Args) {
				d := func(p string) Op { o := op(Dir, "--dir", "", p); o.Perms = 0o755; return o }
				a.Ops = []Op{d("/a"), d("/b"), d("/c")}
				a.ArgsFDs = []int{3, 4}
				a.Command = []string{"sh"}
			}},
		{"a command in an args file is dropped", []string{"--args", "3", "--dir", "/c", "sh"},
			map[int]string{3: "--dir\x00/a\x00dropped\x00--dir\x00/b\x00"}, func(a *Args) {
				d := func(p string) Op { o := op(Dir, "--dir", "", p); o.Perms = 0o755; return o }
				a.Ops = []Op{d("/a"), d("/c")}
				a.ArgsFDs = []int{3}
				a.Command = []string{"sh"}
			}},
		{"empty args file", []string{"--args", "3", "sh"}, map[int]string{3: ""}, func(a *Args) {
			a.ArgsFDs = []int{3}
			a.Command = []string{"sh"}
		}},
		{"help stops the parsing", []string{"--unshare-pid", "--help", "--bogus"}, nil, func(a *Args) {
			a.Unshare.PID, a.Help = true, true
		}},
		{"version stops the parsing", []string{"--version", "--bogus"}, nil, func(a *Args) {
			a.Version = true
		}},
		{"lone version", []string{"--version"}, nil, func(a *Args) {
			a.Version = true
		}},
		{"help in an args file", []string{"--args", "3", "--bogus"}, map[int]string{3: "--help\x00"}, func(a *Args) {
			a.Help, a.ArgsFDs = true, []int{3}
		}},
		{"no command", []string{"--unshare-pid"}, nil, func(a *Args) {
			a.Unshare.PID = true
		}},
		// The end of the line checks no pending --perms (Check then says
		// there is no command).
		{"perms at the end", []string{"--perms", "0700"}, nil, func(a *Args) {
			a.nextPerms = 0o700
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Parse(tc.argv, files(tc.args))
			if err != nil {
				t.Fatalf("Parse(%q): %v", tc.argv, err)
			}
			want := base()
			tc.want(want)
			got.total, want.total = 0, 0
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("Parse(%q)\n got %+v\nwant %+v", tc.argv, got, want)
			}
		})
	}
}

func TestParseNoArguments(t *testing.T) {
	if _, err := Parse(nil, nil); err != ErrUsage {
		t.Fatalf("Parse(nil) = %v, want ErrUsage", err)
	}
}

func TestParseKeepsWarningsOnError(t *testing.T) {
	a, err := Parse([]string{"--chdir", "/a", "--chdir", "/b", "--bind"}, nil)
	if err == nil || a == nil || len(a.Warnings) != 1 {
		t.Fatalf("Parse = %+v, %v; want the --chdir warning and an error", a, err)
	}
}

func TestParseValues(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
		ok   bool
	}{
		{"0", 0, true}, {"+3", 3, true}, {" \t3", 3, true}, {"-0", 0, true},
		{"3 ", 0, false}, {"0x3", 0, false}, {"", 0, false}, {" ", 0, false}, {"-", 0, false},
		// strtol saturates, and bubblewrap keeps 32 bits of it.
		{"99999999999999999999", -1, true}, {"-99999999999999999999", 0, true}, {"4294967299", 3, true},
	} {
		if got, ok := parseCLong(tc.in); got != tc.want || ok != tc.ok {
			t.Errorf("parseCLong(%q) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
	for _, tc := range []struct {
		in   string
		want int
		ok   bool
	}{
		{"0", 0, true}, {"755", 0o755, true}, {"0755", 0o755, true}, {"07777", 0o7777, true},
		{"+7", 7, true}, {"-0", 0, true}, {" 7", 7, true},
		{"10000", 0, false}, {"8", 0, false}, {"-1", 0, false}, {"7 ", 0, false},
	} {
		if got, ok := parseOctal(tc.in); got != tc.want || ok != tc.ok {
			t.Errorf("parseOctal(%q) = %o, %v; want %o, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
	for _, tc := range []struct {
		in   string
		want uint64
		ok   bool
	}{
		{"10", 10, true}, {"010", 8, true}, {"0x10", 16, true}, {"0X1f", 31, true}, {"0", 0, true},
		{"0x", 0, false}, {"1_0", 0, false}, {"09", 0, false}, {"0b1", 0, false}, {"0o7", 0, false},
	} {
		if got, ok := parseCBase0(tc.in); got != tc.want || ok != tc.ok {
			t.Errorf("parseCBase0(%q) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
	for name, want := range map[string]bool{"CAP_SYS_ADMIN": true, "cap_chown": true, "Cap_Bpf": true,
		"cap_checkpoint_restore": true, "0": true, "63": true, "64": false, "sys_admin": false, "": false} {
		if knownCap(name) != want {
			t.Errorf("knownCap(%q) = %v, want %v", name, !want, want)
		}
	}
}

func TestSplitNUL(t *testing.T) {
	for in, want := range map[string][]string{
		"": nil, "a": {"a"}, "a\x00": {"a"}, "a\x00b": {"a", "b"}, "\x00": {""}, "a\x00\x00": {"a", ""},
	} {
		if got := splitNUL([]byte(in)); !reflect.DeepEqual(got, want) {
			t.Errorf("splitNUL(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCheck(t *testing.T) {
	root, user := Host{UID: 0, GID: 0}, Host{UID: 1000, GID: 1000}
	for _, tc := range []struct {
		argv    []string
		host    Host
		want    string // the error, "" for none
		wantUsr bool   // the user namespace as settled
	}{
		{[]string{"true"}, root, "", false},
		{[]string{"true"}, user, "", true},
		{[]string{"--unshare-user-try", "true"}, root, "", true},
		{[]string{"--unshare-user-try", "true"}, Host{UsernsDisabled: true}, "", false},
		{[]string{"--unshare-pid"}, root, "usage", false},
		{[]string{"--uid", "0", "true"}, root, "", false},
		{[]string{"--uid", "5", "true"}, root, "Specifying --uid requires --unshare-user or --userns", false},
		{[]string{"--gid", "5", "true"}, root, "Specifying --gid requires --unshare-user or --userns", false},
		{[]string{"--uid", "5", "--gid", "5", "true"}, user, "", true},
		{[]string{"--uid", "5", "--userns", "3", "true"}, root, "", false},
		{[]string{"--hostname", "h", "true"}, root, "Specifying --hostname requires --unshare-uts", false},
		{[]string{"--hostname", "h", "--unshare-uts", "true"}, root, "", false},
		{[]string{"--as-pid-1", "true"}, root, "Specifying --as-pid-1 requires --unshare-pid", false},
		{[]string{"--as-pid-1", "--unshare-pid", "--lock-file", "/l", "true"}, root, "Specifying --as-pid-1 and --lock-file is not permitted", false},
		{[]string{"--userns-block-fd", "3", "true"}, user, "--userns-block-fd requires --unshare-user", false},
		{[]string{"--userns-block-fd", "3", "--unshare-user", "true"}, user, "--userns-block-fd requires --info-fd", true},
		{[]string{"--userns", "3", "--unshare-user", "true"}, user, "--userns is not compatible with --unshare-user", true},
		{[]string{"--userns", "3", "--unshare-user-try", "true"}, user, "--userns is not compatible with --unshare-user-try", false},
		{[]string{"--disable-userns", "true"}, user, "--disable-userns requires --unshare-user", false},
		{[]string{"--disable-userns", "--unshare-user", "--userns-block-fd", "3", "--info-fd", "4", "true"}, user, "--disable-userns is not compatible with --userns-block-fd", true},
		// bubblewrap checks --userns-block-fd before it looks for a command.
		{[]string{"--userns-block-fd", "3"}, user, "--userns-block-fd requires --unshare-user", false},
	} {
		t.Run(strings.Join(tc.argv, " "), func(t *testing.T) {
			a, err := Parse(tc.argv, nil)
			if err != nil {
				t.Fatal(err)
			}
			ns, err := a.Check(tc.host)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tc.want {
				t.Fatalf("Check = %q, want %q", got, tc.want)
			}
			if err == nil && ns.User != tc.wantUsr {
				t.Fatalf("Check: user namespace %v, want %v", ns.User, tc.wantUsr)
			}
		})
	}
}
