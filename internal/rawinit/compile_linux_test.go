package rawinit

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/internal/launch"
	"github.com/nsrun/nsrun/landlock"
	"github.com/nsrun/nsrun/mounts"
	"github.com/nsrun/nsrun/seccomp"
)

func smallSpec() *launch.Spec {
	return &launch.Spec{Args: []string{"true"}, Env: []string{"PATH=/bin:/usr/bin"}, Dir: "/w", Hostname: "box", Loopback: true,
		Rlimits: []launch.Rlimit{{Name: "core"}},
		Plan: &mounts.Plan{Root: mounts.Op{Kind: mounts.OpBind, Path: "/", Source: "/", ReadOnly: true, ID: mounts.Identity{Dev: 1, Ino: 2}},
			Ops: []mounts.Op{{Kind: mounts.OpTmpfs, Path: "/tmp", Mode: 0o1777, Optional: true}, {Kind: mounts.OpBind, Path: "/w", Source: "/w"}}},
		Landlock: &landlock.Ruleset{Handled: landlock.Request{FS: 0xffff}, Paths: []landlock.PathRule{{Path: "/w", Access: 0xffff, Dir: true}}},
	}
}

// TestCompile holds every op of a small spec, with its arguments: the
// order of the steps (maps, descriptors, lo, mounts, pivot_root,
// dumpable, hostname, rlimits, Landlock, capabilities, chdir, the
// payload), where each jumps, and which errnos each lets pass.
func TestCompile(t *testing.T) {
	p, err := Compile(Input{Spec: smallSpec(), Files: []int{0, 1, 2, 7, 8}, SyncR: 9, SyncW: 10, Setsid: true, CapLast: 1})
	if err != nil {
		t.Fatal(err)
	}
	want := `
0 sys close 0xa
1 sys read 0x9 byte 0x1 -> r0
2 jumpreg r0 eq=true ->93
3 sys dup3 0x7 0x3
4 sys dup3 0x8 0x4
5 sys close_range 0x5 0xffffffff
6 sys close_range 0x3 0xffffffff 0x4
7 sys setsid
8 sys prctl 0xf "nsrun-init"
9 sys prctl 0x1 0x9
10 sys ppoll pollfd lifeline 0x1 timespec 0 -> r1
11 jumpreg r1 eq=false ->93
12 sys socket 0x2 0x80002 -> r2
13 sys ioctl r2 0x8914 ifreq lo up
14 sys close r2
15 sys mount "" "/" "" 0x44000 ""
16 sys openat2 -100 "/" how{0x280000,0x6} 0x18 -> r3
17 sys fstat r3 stat
18 cmp stat -1 0x1 0x8 0x74 eq=false fail
19 cmp stat+8 -1 0x2 0x8 0x74 eq=false fail
20 sys open_tree r3 "" 0x89001 -> r4
21 sys mount_setattr r4 "" 0x9000 attr{0x7} 0x20
22 sys close r3
23 sys move_mount r4 "" -100 "/" 0x4
24 sys openat2 r4 "tmp" how{0x280000,0x16} 0x18 -> r5 ENOENT->37
25 sys fsopen "tmpfs" 0x1 -> r6
26 sys fsconfig r6 0x1 "source" "tmpfs"
27 sys fsconfig r6 0x1 "mode" "755"
28 sys fsconfig r6 0x6
29 sys fsmount r6 0x1 0x6 -> r7
30 sys close r6
31 sys openat r7 "." 0x90000 -> r8
32 sys fchmod r8 0x3ff
33 sys close r8
34 sys move_mount r7 "" r5 "" 0x44
35 sys close r7
36 sys close r5
37 sys openat2 r4 "w" how{0x280000,0x16} 0x18 -> r9
38 sys openat2 -100 "/w" how{0x280000,0x6} 0x18 -> r10
39 sys open_tree r10 "" 0x89001 -> r11
40 sys mount_setattr r11 "" 0x9000 attr{0x6} 0x20
41 sys close r10
42 sys move_mount r11 "" r9 "" 0x44
43 sys close r11
44 sys close r9
45 sys fchdir r4
46 sys pivot_root "." "."
47 sys umount2 "." 0x2
48 sys chdir "/"
49 sys close r4
50 sys prctl 0x4
51 sys sethostname "box" 0x3
52 sys prlimit64 0x0 0x4 rlimit core
53 sys landlock_create_ruleset ruleset attr 0x8 -> r12
54 sys openat2 -100 "/w" how{0x2a0000,0x6} 0x18 -> r13 ENOENT->64
55 sys fstat r13 stat
56 cmp stat+24 0xf000 0xa000 0x4 eq=true ->63
57 cmp stat+24 0xf000 0x4000 0x4 eq=true ->61
58 store32 r13 beneath{0xc007}+8
59 sys landlock_add_rule r12 0x1 beneath{0xc007}
60 jump ->63
61 store32 r13 beneath{0xffff}+8
62 sys landlock_add_rule r12 0x1 beneath{0xffff}
63 sys close r13
64 sys prctl 0x26 0x1
65 sys landlock_restrict_self r12
66 sys close r12
67 sys prctl 0x26 0x1
68 sys capget cap header cap data
69 cmp cap data 0x100 0x0 0x4 eq=true ->73
70 sys prctl 0x18 ok=EINVAL
71 sys prctl 0x18 0x1 ok=EINVAL
72 sys prctl 0x1c 0xef
73 sys prctl 0x2f 0x4
74 sys capset cap header cap zero
75 sys chdir "/w"
76 sys signalfd4 -1 sigset 0x8 0x80000 -> r14
77 sys epoll_create1 0x80000 -> r15
78 sys pipe2 pipe fds 0x80000
79 load32 pipe fds -> r16
80 load32 pipe fds+4 -> r17
81 sys clone 0x1011 0x0 pidfd -> r18
82 jumpreg r18 eq=false ->87
83 payload r17
84 exec "/bin/true" argv envp stat 0x1 0x23
85 exec "/usr/bin/true" argv envp stat 0x1 0x23
86 execend
87 sys close r17
88 execwait r16
89 sys close r16
90 load32 pidfd -> r19
91 started r18 r19
92 supervise r18 r14 -1 0x0 r15
93 exit 0x7d
`
	got := "\n" + p.String()
	if got != want {
		t.Errorf("program:\n%s\nwant:\n%s", got, want)
	}
}

// TestSupports: what the prototype cannot build is refused by name, so
// the launcher falls back to the Go init.
func TestSupports(t *testing.T) {
	notify := seccomp.Program{{Code: 0x06, K: 0x7fc00000}}
	for _, c := range []struct {
		name string
		edit func(*launch.Spec)
		want string
	}{
		{"small", func(*launch.Spec) {}, ""},
		{"tty", func(s *launch.Spec) { s.TTY = &launch.TTYSpec{} }, "a pseudo-terminal"},
		{"extra files", func(s *launch.Spec) { s.ExtraFiles = []int{7} }, "ExtraFiles"},
		{"network", func(s *launch.Spec) { s.Net = true }, ""},
		{"addresses", func(s *launch.Spec) { s.Loopback, s.LoopbackAddrs = true, []string{"127.0.0.2", "::2"} }, ""},
		{"network, socket refused", func(s *launch.Spec) {
			s.Net, s.Seccomp = true, []seccomp.Program{refuse(unix.SYS_SOCKET)}
		}, "a seccomp filter that refuses the socket factory's socket"},
		{"network, recvmsg refused", func(s *launch.Spec) {
			s.Net, s.Seccomp = true, []seccomp.Program{refuse(unix.SYS_RECVMSG)}
		}, "a seccomp filter that refuses the socket factory's recvmsg"},
		{"no network, socket refused", func(s *launch.Spec) { s.Seccomp = []seccomp.Program{refuse(unix.SYS_SOCKET)} }, ""},
		{"listener", func(s *launch.Spec) { s.HoldListener = true }, "a held seccomp listener"},
		{"notifying filter", func(s *launch.Spec) { s.Seccomp = []seccomp.Program{notify} }, "a seccomp filter that notifies"},
		{"supervisor", func(s *launch.Spec) { s.Supervisor = &launch.SupervisorSpec{} }, "the Landlock-only supervisor"},
		{"remount", func(s *launch.Spec) { s.Plan.Remount = true }, "remounting"},
		{"overlay", func(s *launch.Spec) { s.Plan.Ops = append(s.Plan.Ops, mounts.Op{Kind: mounts.OpOverlay, Path: "/o"}) }, "an overlay on /o"},
		{"files", func(s *launch.Spec) {
			s.Plan.Ops = append(s.Plan.Ops, mounts.Op{Kind: mounts.OpEmptyFile, Path: "/w/.npmrc", Optional: true},
				mounts.Op{Kind: mounts.OpFile, Path: "/etc/passwd"}, mounts.Op{Kind: mounts.OpFile, Path: "/etc/hosts", Optional: true})
		}, ""},
		{"a file after an optional one", func(s *launch.Spec) {
			s.Plan.Ops = append(s.Plan.Ops, mounts.Op{Kind: mounts.OpFile, Path: "/etc/hosts", Optional: true},
				mounts.Op{Kind: mounts.OpEmptyFile, Path: "/w/.npmrc"}, mounts.Op{Kind: mounts.OpFile, Path: "/etc/passwd"})
		}, "a file of the sandbox's own on /etc/passwd after the optional one on /etc/hosts"},
		{"mirror", func(s *launch.Spec) { s.Plan.Ops[1].Mirror = []mounts.Mountpoint{{Rel: "x"}} }, "a mirror on /w"},
		{"overlay root", func(s *launch.Spec) { s.Plan.Root.Kind = mounts.OpOverlay }, "a root that is not a bind"},
		{"tmpfs link", func(s *launch.Spec) { s.Plan.Ops[0].Mountpoints = []mounts.Mountpoint{{Rel: "l", Link: "/x"}} }, "a symlink in the tmpfs"},
		{"device", func(s *launch.Spec) {
			s.Plan.Ops = append(s.Plan.Ops, mounts.Op{Kind: mounts.OpDev, Path: "/dev", Devices: []mounts.Node{{Path: "kvm"}}})
		}, "devices in /dev"},
		{"rlimit", func(s *launch.Spec) { s.Rlimits = []launch.Rlimit{{Name: "rtprio"}} }, "rlimit rtprio"},
		{"no command", func(s *launch.Spec) { s.Args = nil }, "an empty command"},
		{"session", func(s *launch.Spec) { s.Session = true }, "a session"},
		{"as pid 1", func(s *launch.Spec) { s.AsPid1 = true }, "the payload as pid 1"},
		{"caps", func(s *launch.Spec) { s.Caps = &launch.Caps{} }, "capabilities kept"},
		{"argv0", func(s *launch.Spec) { s.Argv0 = "sh" }, "an argv[0] of its own"},
	} {
		s := smallSpec()
		c.edit(s)
		err := Supports(s)
		if c.want == "" {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			continue
		}
		if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want ErrUnsupported naming %q", c.name, err, c.want)
		}
		if _, err := Compile(Input{Spec: s}); !errors.Is(err, ErrUnsupported) {
			t.Errorf("%s: Compile: %v", c.name, err)
		}
	}
}

// refuse is a filter that refuses call nr with EPERM.
func refuse(nr uintptr) seccomp.Program {
	return seccomp.Program{
		{Code: 0x20}, // ld [nr]
		{Code: 0x15, Jf: 1, K: uint32(nr)},
		{Code: 0x06, K: 0x00050000 | uint32(unix.EPERM)},
		{Code: 0x06, K: 0x7fff0000},
	}
}

// TestPlaceFiles: each descriptor ends at its index, none is overwritten
// before it is moved, and -1 closes that number.
func TestPlaceFiles(t *testing.T) {
	for _, c := range []struct {
		files []int
		want  []move
	}{
		{[]int{0, 1, 2}, nil},
		{[]int{5, 6, 7}, []move{{5, 0}, {6, 1}, {7, 2}}},
		{[]int{1, 0}, []move{{0, 2}, {1, 0}, {2, 1}}},
		{[]int{0, 1, 2, -1, 9}, []move{{3, -1}, {9, 4}}},
		{[]int{3, 3, 0}, []move{{0, 4}, {3, 0}, {3, 1}, {4, 2}}},
	} {
		got := placeFiles(c.files)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("placeFiles(%v) = %v, want %v", c.files, got, c.want)
		}
		// Simulate: every descriptor must end where asked.
		fds := map[int]int{} // number -> the file (its number in the parent)
		for _, f := range c.files {
			if f >= 0 {
				fds[f] = f
			}
		}
		for _, m := range got {
			if m.to < 0 {
				delete(fds, m.from)
				continue
			}
			fds[m.to] = fds[m.from]
		}
		for i, f := range c.files {
			if got, ok := fds[i]; f >= 0 && (!ok || got != f) {
				t.Errorf("placeFiles(%v): %d holds %d, want %d", c.files, i, got, f)
			}
			if _, ok := fds[i]; f < 0 && ok {
				t.Errorf("placeFiles(%v): %d is open", c.files, i)
			}
		}
	}
}

func TestCandidates(t *testing.T) {
	for _, c := range []struct {
		name string
		env  []string
		want []string
	}{
		{"/bin/true", nil, []string{"/bin/true"}},
		{"./x", []string{"PATH=/a"}, []string{"./x"}},
		{"true", nil, []string{"/usr/local/bin/true", "/usr/bin/true", "/bin/true"}},
		{"true", []string{"PATH=/a:", "PATH=/b::/c"}, []string{"/b/true", "true", "/c/true"}},
	} {
		if got := candidates(c.name, c.env); !reflect.DeepEqual(got, c.want) {
			t.Errorf("candidates(%q, %v) = %v, want %v", c.name, c.env, got, c.want)
		}
	}
}

// TestDecode: the records become the messages the Go init sends.
func TestDecode(t *testing.T) {
	init := &Init{prog: &Program{Steps: []string{"bind /w on /w", "exec true", "/bin/true", "search PATH for true", "mount point /w", "landlock rule on /w"},
		ExecStep: 1, SearchStep: 3, Path: "/bin", Explain: map[int]string{0: explainSource, 4: explainMountPoint, 5: explainRule}},
		args: []string{"true"}}
	rec := func(r record) []byte {
		return unsafe.Slice((*byte)(unsafe.Pointer(&r)), recordSize)
	}
	for _, c := range []struct {
		r    record
		want launch.Msg
	}{
		{record{Kind: recStarted, Pid: 2, Pidfd: 8}, launch.Msg{Kind: launch.MsgStarted, Pid: 2, Code: 8}},
		{record{Kind: recExit, Code: 3, UserUS: 10, SysUS: 20, MaxRSS: 30},
			launch.Msg{Kind: launch.MsgExit, Code: 3, Usage: &launch.Usage{UserUS: 10, SystemUS: 20, MaxRSSKiB: 30}}},
		{record{Kind: recExit, Code: 137, Signal: 9}, launch.Msg{Kind: launch.MsgExit, Code: 137, Signal: 9, Usage: &launch.Usage{}}},
		{record{Kind: recError, Step: 0, Errno: uint32(syscall.ENOENT), Code: 125},
			launch.Msg{Kind: launch.MsgError, Code: 125, Errno: int(syscall.ENOENT), Msg: "bind /w on /w: no such file or directory"}},
		{record{Kind: recError, Step: 0, Errno: uint32(syscall.ESTALE), Code: 125},
			launch.Msg{Kind: launch.MsgError, Code: 125, Msg: "bind /w on /w: the path now names another file than the one checked"}},
		// A path swapped for a symlink after it was checked, as the Go
		// init words it (package mounts, landlock.Apply).
		{record{Kind: recError, Step: 0, Errno: uint32(syscall.ELOOP), Code: 125},
			launch.Msg{Kind: launch.MsgError, Code: 125, Errno: int(syscall.ELOOP), Msg: "bind /w on /w: too many levels of symbolic links (a symlink appeared after the path was checked)"}},
		{record{Kind: recError, Step: 4, Errno: uint32(syscall.ELOOP), Code: 125},
			launch.Msg{Kind: launch.MsgError, Code: 125, Errno: int(syscall.ELOOP), Msg: "mount point /w: too many levels of symbolic links (a symlink is in the way; nsrun never mounts through one)"}},
		{record{Kind: recError, Step: 4, Errno: uint32(syscall.ESTALE), Code: 125},
			launch.Msg{Kind: launch.MsgError, Code: 125, Msg: "mount point /w: the path now names another file than the one checked"}},
		{record{Kind: recError, Step: 5, Errno: uint32(syscall.ELOOP), Code: 125},
			launch.Msg{Kind: launch.MsgError, Code: 125, Msg: "landlock rule on /w: the path changed during start-up (a symlink is now on the way); nothing ran"}},
		{record{Kind: recError, Step: 5, Errno: uint32(syscall.ESTALE), Code: 125},
			launch.Msg{Kind: launch.MsgError, Code: 125, Msg: "landlock rule on /w: the path changed during start-up (it is another file now); nothing ran"}},
		// ELOOP elsewhere is the kernel's (a loop on the command's path).
		{record{Kind: recError, Step: 1, Errno: uint32(syscall.ELOOP), Code: 126},
			launch.Msg{Kind: launch.MsgError, Code: 126, Errno: int(syscall.ELOOP), Msg: "exec true: too many levels of symbolic links"}},
		{record{Kind: recError, Step: 3, Errno: uint32(syscall.ENOENT), Code: 127},
			launch.Msg{Kind: launch.MsgError, Code: 127, Msg: "true: command not found in PATH /bin"}},
		// An exec that fails after the checks is the Go init's exec error
		// (a missing ELF interpreter), not "not found".
		{record{Kind: recError, Step: 1, Errno: uint32(syscall.ENOENT), Code: 127},
			launch.Msg{Kind: launch.MsgError, Code: 127, Errno: int(syscall.ENOENT), Msg: "exec true: no such file or directory"}},
		{record{Kind: recError, Step: 2, Errno: uint32(syscall.EACCES), Code: 126},
			launch.Msg{Kind: launch.MsgError, Code: 126, Errno: int(syscall.EACCES), Msg: "/bin/true: permission denied"}},
		{record{Kind: recError, Step: 1, Errno: uint32(syscall.EACCES), Code: 126},
			launch.Msg{Kind: launch.MsgError, Code: 126, Errno: int(syscall.EACCES), Msg: "exec true: permission denied"}},
	} {
		if got := init.Decode(rec(c.r)); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Decode(%+v) = %+v, want %+v", c.r, got, c.want)
		}
	}
}

// A Landlock rule that fails past its open is worded as landlock.Apply
// words it: an fstat's or a landlock_add_rule's error, not an open's
// (the rule's step words every errno as "open").
func TestDecodeLandlockRuleSteps(t *testing.T) {
	spec := smallSpec()
	p, err := Compile(Input{Spec: spec, Files: []int{0, 1, 2, 7, 8}, SyncR: 9, SyncW: 10, Setsid: true, CapLast: 1})
	if err != nil {
		t.Fatal(err)
	}
	init := &Init{prog: p, args: spec.Args}
	decode := func(i int, e syscall.Errno) string {
		r := record{Kind: recError, Step: uint32(p.Ops[i].Step), Errno: uint32(e), Code: 125}
		return init.Decode(unsafe.Slice((*byte)(unsafe.Pointer(&r)), recordSize)).Msg
	}
	rule := -1
	var got []string
	for i, op := range p.Ops {
		if op.Code != opSys {
			continue
		}
		switch {
		case op.Nr == unix.SYS_OPENAT2 && rule < 0 && strings.HasPrefix(p.Steps[op.Step], "landlock rule on /w"):
			rule = i
		case op.Nr == unix.SYS_FSTAT && rule >= 0 && len(got) == 0:
			got = append(got, decode(i, syscall.EBADF))
		case op.Nr == unix.SYS_LANDLOCK_ADD_RULE && op.Args[1] == imm(unix.LANDLOCK_RULE_PATH_BENEATH):
			got = append(got, decode(i, syscall.ENOMEM))
		}
	}
	dir := spec.Landlock.Paths[0].Access & spec.Landlock.Handled.FS
	want := []string{
		"landlock rule on /w: fstat: bad file descriptor",
		fmt.Sprintf("landlock_add_rule /w %s: cannot allocate memory", dir&landlock.FileRights),
		fmt.Sprintf("landlock_add_rule /w %s: cannot allocate memory", dir),
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := decode(rule, syscall.EACCES); got != "landlock rule on /w: open: permission denied" {
		t.Errorf("the open: %q", got)
	}
}

// The mount point of a bind, reopened after mounting to check it, is
// worded as package mounts' checkMounted words it: the bare errno, with
// none of the first open's story.
func TestDecodeReopenAfterMounting(t *testing.T) {
	spec := smallSpec()
	spec.Plan.Ops[1].ID = mounts.Identity{Dev: 3, Ino: 4}
	p, err := Compile(Input{Spec: spec, Files: []int{0, 1, 2, 7, 8}, SyncR: 9, SyncW: 10, Setsid: true, CapLast: 1})
	if err != nil {
		t.Fatal(err)
	}
	init := &Init{prog: p, args: spec.Args}
	step := -1
	for i, s := range p.Steps {
		if s == "reopen /w after mounting" {
			step = i
		}
	}
	for _, c := range []struct {
		errno syscall.Errno
		want  launch.Msg
	}{
		{syscall.ELOOP, launch.Msg{Kind: launch.MsgError, Code: 125, Errno: int(syscall.ELOOP), Msg: "reopen /w after mounting: too many levels of symbolic links"}},
		{syscall.ESTALE, launch.Msg{Kind: launch.MsgError, Code: 125, Msg: "reopen /w after mounting: the path now names another file than the one checked"}},
	} {
		r := record{Kind: recError, Step: uint32(step), Errno: uint32(c.errno), Code: 125}
		if got := init.Decode(unsafe.Slice((*byte)(unsafe.Pointer(&r)), recordSize)); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%v: got %+v, want %+v", c.errno, got, c.want)
		}
	}
}

// A milestone the init logs (-v) carries its time since the clone, as the
// Go init's steps carry theirs; a log without a time (a clock that failed)
// says none.
func TestDecodeMilestone(t *testing.T) {
	init := &Init{prog: &Program{Steps: []string{"lo up"}}, cloned: 1_000_000_000}
	rec := func(r record) []byte {
		return unsafe.Slice((*byte)(unsafe.Pointer(&r)), recordSize)
	}
	if got := init.Decode(rec(record{Kind: recLog, UserUS: 1_002_500_000})); got.Msg != "lo up (2.50 ms)" || got.Kind != launch.MsgLog {
		t.Errorf("got %+v", got)
	}
	if got := init.Decode(rec(record{Kind: recLog})); got.Msg != "lo up" {
		t.Errorf("without a time: got %+v", got)
	}
}

// Verbose, the program logs the Go init's milestones in its order; quiet,
// it has no note at all.
func TestCompileMilestones(t *testing.T) {
	s := cliSpec(t)
	s.Loopback = true
	for _, verbose := range []bool{false, true} {
		s.Verbose = verbose
		p, err := Compile(Input{Spec: s, Files: []int{0, 1, 2, 7, 8}, SyncR: 9, SyncW: 10, Setsid: true, CapLast: 40})
		if err != nil {
			t.Fatal(err)
		}
		var notes []string
		filtered := false
		for _, op := range p.Ops {
			filtered = filtered || op.Code == opSys && op.Nr == unix.SYS_SECCOMP
			if op.Code == opNote {
				notes = append(notes, p.Steps[op.Step])
				// Past the filters the init calls nothing for a note's
				// time: a profile may kill clock_gettime.
				if untimed := op.Args[0] == imm(1); untimed != filtered {
					t.Errorf("%s: untimed %v", p.Steps[op.Step], untimed)
				}
			}
		}
		var want []string
		if verbose {
			want = []string{"lo up", "mounts built, old root detached", "landlock applied", "capabilities dropped, no_new_privs set", "seccomp filter loaded", "payload started"}
		}
		if !reflect.DeepEqual(notes, want) {
			t.Errorf("verbose %v: notes %q, want %q", verbose, notes, want)
		}
	}
	// Under a filter of its caller's (a nested sandbox), which the init
	// inherits, no note is timed by the init.
	s.Verbose = true
	p, err := Compile(Input{Spec: s, Files: []int{0, 1, 2, 7, 8}, SyncR: 9, SyncW: 10, Setsid: true, CapLast: 40, Filtered: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range p.Ops {
		if op.Code == opNote && op.Args[0] != imm(1) {
			t.Errorf("under an inherited filter, %s is timed by the init", p.Steps[op.Step])
		}
	}
}

// Where the kernel has no Landlock the ruleset handles nothing: the Go
// init, whose landlock.Apply does nothing then, still tells the step, and
// so does the raw init (their -v steps are compared).
func TestCompileMilestoneWithoutLandlock(t *testing.T) {
	s := cliSpec(t)
	s.Verbose = true
	s.Landlock = &landlock.Ruleset{}
	p, err := Compile(Input{Spec: s, Files: []int{0, 1, 2, 7, 8}, SyncR: 9, SyncW: 10, Setsid: true, CapLast: 40})
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range p.Ops {
		if op.Code == opNote && p.Steps[op.Step] == "landlock applied" {
			return
		}
		if op.Code == opSys && op.Nr == unix.SYS_LANDLOCK_CREATE_RULESET {
			t.Fatal("a ruleset made for nothing handled")
		}
	}
	t.Error("no \"landlock applied\" step")
}

// A milestone never changes the step a failure is told as: verbose or
// not, the program has the same ops, each in a step of the same name, the
// notes aside.
func TestNotesKeepSteps(t *testing.T) {
	for _, file := range []string{"testdata/cli-rw-spec.json", "testdata/cli-agent-spec.json"} {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var steps [2][]string
		for i, verbose := range []bool{false, true} {
			var s launch.Spec
			if err := json.Unmarshal(b, &s); err != nil {
				t.Fatal(err)
			}
			s.Loopback, s.Verbose = true, verbose
			p, err := Compile(Input{Spec: &s, Files: []int{0, 1, 2, 7, 8}, SyncR: 9, SyncW: 10, Setsid: true, CapLast: 40})
			if err != nil {
				t.Fatal(err)
			}
			for _, op := range p.Ops {
				if op.Code != opNote {
					steps[i] = append(steps[i], fmt.Sprintf("%s %s", opNames[op.Code], p.Steps[op.Step]))
				}
			}
		}
		if !reflect.DeepEqual(steps[0], steps[1]) {
			for i := range min(len(steps[0]), len(steps[1])) {
				if steps[0][i] != steps[1][i] {
					t.Fatalf("%s: op %d: quiet %q, verbose %q", file, i, steps[0][i], steps[1][i])
				}
			}
			t.Fatalf("%s: quiet %d ops, verbose %d", file, len(steps[0]), len(steps[1]))
		}
	}
}

// TestLink: buffers land in one arena, tables and fixups point at the
// buffers they name, and the runner's own loads index the arena.
func TestLink(t *testing.T) {
	b := newBuilder()
	argv := b.table("argv", []string{"a", "bc"})
	target := b.data("target", []byte{1, 2, 3, 4})
	b.p.Bufs = append(b.p.Bufs, Buffer{Data: make([]byte, 16), Name: "holder", Fixups: []Fixup{{Off: 8, Buf: int(target.V)}}})
	b.sys(1, argv)
	r := b.newReg()
	b.add(Op{Code: opLoad32, Args: [6]Arg{target}, Dst: r})
	m := link(b.p)
	base := uintptr(unsafe.Pointer(&m.arena[0]))
	addr := m.ops[0].a[0]
	ptr0 := binary.NativeEndian.Uint64(m.mem[addr-base:])
	ptr1 := binary.NativeEndian.Uint64(m.mem[addr-base+8:])
	if s := string(m.mem[ptr0-uint64(base):][:2]); s != "a\x00" {
		t.Errorf("argv[0] = %q", s)
	}
	if s := string(m.mem[ptr1-uint64(base):][:3]); s != "bc\x00" {
		t.Errorf("argv[1] = %q", s)
	}
	if end := binary.NativeEndian.Uint64(m.mem[addr-base+16:]); end != 0 {
		t.Errorf("argv not NULL-terminated: %#x", end)
	}
	off := m.ops[1].a[0]
	if got := m.mem[off : off+4]; !reflect.DeepEqual(got, []byte{1, 2, 3, 4}) {
		t.Errorf("load32 offset %d reads %v", off, got)
	}
	holder := len(b.p.Bufs) - 1
	_ = holder
	found := false
	for i := 0; i+16 <= len(m.mem); i += 8 {
		if uintptr(binary.NativeEndian.Uint64(m.mem[i+8:])) == base+off && i != int(off) {
			found = true
		}
	}
	if !found {
		t.Error("the fixup does not hold the target's address")
	}
}

// TestCompileVfork: with Vfork the payload is cloned with CLONE_VM and
// CLONE_VFORK (on the init's own stack for it), starts at the op after
// the init's jump, and the init goes on past the payload's ops.
func TestCompileVfork(t *testing.T) {
	p, err := Compile(Input{Spec: smallSpec(), Files: []int{0, 1, 2, 7, 8}, SyncR: 9, SyncW: 10, CapLast: 1, Vfork: true})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(p.String()), "\n")
	at := -1
	for i, l := range lines {
		if strings.Contains(l, " vfork ") {
			at = i
		}
	}
	if at < 0 {
		t.Fatalf("no vfork:\n%s", p)
	}
	want := []string{
		itoa(at) + " vfork 0x5111 pidfd -> r18 ->" + itoa(at+2),
		itoa(at+1) + " jump ->" + itoa(at+6),
		itoa(at+2) + " payload r17",
		itoa(at+3) + ` exec "/bin/true" argv envp stat 0x1 ` + fmt.Sprintf("%#x", p.ExecStep),
		itoa(at+4) + ` exec "/usr/bin/true" argv envp stat 0x1 ` + fmt.Sprintf("%#x", p.ExecStep),
		itoa(at+5) + " execend",
		itoa(at+6) + " sys close r17",
	}
	for i, w := range want {
		if lines[at+i] != w {
			t.Errorf("op %d: %q, want %q", at+i, lines[at+i], w)
		}
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

// TestSupportsKnowsEverySpecField fails when launch.Spec gains a field:
// the raw init must build it or refuse it (Supports), never ignore it.
// (The merge that brought sessions, AsPid1, Caps and Argv0 showed why.)
func TestSupportsKnowsEverySpecField(t *testing.T) {
	known := map[string]bool{
		// Built.
		"Plan": true, "Args": true, "Env": true, "Dir": true, "Hostname": true, "Loopback": true, "Rlimits": true,
		"Landlock": true, "Seccomp": true,
		// Ignored on purpose: the raw init sends no step log.
		"Verbose": true,
		// Refused when set.
		"TTY": true, "ExtraFiles": true, "HoldListener": true, "Net": true, "LoopbackAddrs": true, "Supervisor": true,
		"Session": true, "AsPid1": true, "Caps": true, "Argv0": true,
	}
	typ := reflect.TypeOf(launch.Spec{})
	for i := 0; i < typ.NumField(); i++ {
		if name := typ.Field(i).Name; !known[name] {
			t.Errorf("launch.Spec.%s is new: build it in Compile or refuse it in Supports, then list it here", name)
		}
	}
}

// TestCompileWalk: where openat2 is refused (Walk), no op calls it, and
// a mount point is opened one component at a time, each checked not to
// be a symlink.
func TestCompileWalk(t *testing.T) {
	p, err := Compile(Input{Spec: smallSpec(), Files: []int{0, 1, 2, 7, 8}, SyncR: 9, SyncW: 10, CapLast: 1, Walk: true})
	if err != nil {
		t.Fatal(err)
	}
	prog := p.String()
	if strings.Contains(prog, "openat2") {
		t.Errorf("openat2 with Walk:\n%s", prog)
	}
	want := `sys openat r4 "." 0x290000 -> r10
sys openat r10 "w" 0x2a0000 -> r11
sys close r10
sys fstat r11 stat
cmp stat+24 0xf000 0xa000 0x4 0x28 eq=true fail
`
	var got strings.Builder
	lines := strings.Split(prog, "\n")
	for i, l := range lines {
		if strings.Contains(l, `sys openat r10 "w" `) {
			for _, l := range lines[i-1 : i+4] {
				_, op, _ := strings.Cut(l, " ")
				got.WriteString(op + "\n")
			}
			break
		}
	}
	if got.String() != want {
		t.Errorf("the walk to /w:\n%s\nwant:\n%s\nprogram:\n%s", got.String(), want, prog)
	}
}

// TestCompileSharedPid1: an init that shares the caller's memory (VM)
// leaves the dumpable flag alone (it is the caller's too), keeps
// CAP_AUDIT_READ permitted and nothing else, empties the bounding set
// with no way around it (no skip without CAP_SETPCAP: the step fails),
// mounts procfs with hidepid=ptraceable and dumps no core, soft or hard,
// from its first step on. An init with a copy does none of that. A spec
// whose payload may dump core is refused: until its exec the payload
// shares the caller's memory.
func TestCompileSharedPid1(t *testing.T) {
	spec := smallSpec()
	spec.Plan.Ops = append(spec.Plan.Ops, mounts.Op{Kind: mounts.OpProc, Path: "/proc"})
	in := Input{Spec: spec, Files: []int{0, 1, 2}, SyncR: 9, SyncW: 10, CapLast: 40, Vfork: true}
	copied, err := Compile(in)
	if err != nil {
		t.Fatal(err)
	}
	in.VM = true
	shared, err := Compile(in)
	if err != nil {
		t.Fatal(err)
	}
	steps := func(p *Program) []string {
		var s []string
		for i := range p.Ops {
			if p.Ops[i].Code == opSys || p.Ops[i].Code == opVfork || p.Ops[i].Code == opCmp || p.Ops[i].Code == opExec {
				s = append(s, p.Steps[p.Ops[i].Step]+": "+p.Render(i))
			}
		}
		return s
	}
	has := func(s []string, want string) int {
		for i, l := range s {
			if strings.Contains(l, want) {
				return i
			}
		}
		return -1
	}
	c, s := steps(copied), steps(shared)
	for _, w := range []string{"prctl PR_SET_DUMPABLE 0", "capset to empty", "cmp cap data"} {
		if has(c, w) < 0 {
			t.Errorf("the copy's program has no %q:\n%s", w, copied)
		}
		if has(s, w) >= 0 {
			t.Errorf("the shared program has %q:\n%s", w, shared)
		}
	}
	for _, w := range []string{"RLIMIT_CORE 0:0 for pid 1", "cap kept", "hidepid"} {
		if has(c, w) >= 0 {
			t.Errorf("the copy's program has %q:\n%s", w, copied)
		}
	}
	if i := has(s, "prctl PR_CAPBSET_DROP 40"); i < 0 || strings.Contains(s[i], "ok=EPERM") {
		t.Errorf("the bounding set's last drop: %v", s)
	}
	order := []string{
		"default signal actions",
		"RLIMIT_CORE 0:0 for pid 1, which shares the caller's memory: sys prlimit64 0x0 0x4 no core",
		"hidepid", // procfs
		"capset to CAP_AUDIT_READ alone, permitted: sys capset cap header cap kept",
		"clone the payload: vfork",
		"exec ",
	}
	at := -1
	for _, w := range order {
		i := has(s[at+1:], w)
		if i < 0 {
			t.Fatalf("no %q after op %d:\n%s", w, at, strings.Join(s, "\n"))
		}
		at += i + 1
	}
	for _, b := range shared.Bufs {
		switch b.Name {
		case "cap kept":
			if want := [24]byte{16: 1 << (37 - 32)}; string(b.Data) != string(want[:]) {
				t.Errorf("cap kept: %v", b.Data)
			}
		case "no core":
			if string(b.Data) != string(make([]byte, 16)) {
				t.Errorf("no core: %v", b.Data)
			}
		}
	}
	for _, rs := range [][]launch.Rlimit{nil, {{Name: "core", Soft: 0, Hard: 9}}, {{Name: "nofile", Soft: 9, Hard: 9}}} {
		spec.Rlimits = rs
		if _, err := Compile(in); err == nil || NoShareWhy(spec) == "" {
			t.Errorf("rlimits %v: a payload that may dump core shares the caller's memory: %v", rs, err)
		}
	}
}
