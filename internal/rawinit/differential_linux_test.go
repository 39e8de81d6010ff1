package rawinit

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/internal/launch"
	"github.com/nsrun/nsrun/landlock"
	"github.com/nsrun/nsrun/mounts"
	"github.com/nsrun/nsrun/ns"
	"github.com/nsrun/nsrun/seccomp"
)

// The differential test: the same specs, built by the Go init (nsrun's
// nsrun-init stage, the reference) and by the raw init, must give the same
// sandbox and the same messages. Unlike the CLI's plans (TestRawInitAgrees
// in integration), these are made by hand so that each layer is the only
// one that decides something: Landlock refuses a write that the mounts
// allow, a mount point is missing, a source changed identity.

// outcome is what one init built, seen from outside.
type outcome struct {
	out   string   // the payload's output
	kinds []string // the messages' kinds, in order
	logs  []string // the log messages' texts
	last  launch.Msg
	init  string // how the init ended
}

// nsrunBin is $NSRUN_BIN (a built nsrun, as the integration tests take
// it, for a user without the sources), or one built here.
var nsrunBin = sync.OnceValues(func() (string, error) {
	if bin := os.Getenv("NSRUN_BIN"); bin != "" {
		return bin, nil
	}
	dir, err := os.MkdirTemp("/var/tmp", "rawinit-test-")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "nsrun")
	cmd := exec.Command("go", "build", "-o", bin, "../../cmd/nsrun")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", &exec.Error{Name: "go build: " + string(out), Err: err}
	}
	return bin, nil
})

func needSandboxes(t *testing.T) {
	t.Helper()
	if err := exec.Command("unshare", "-Ur", "true").Run(); err != nil {
		if os.Getenv("NSRUN_INTEGRATION") == "1" {
			t.Fatalf("user namespaces: %v", err)
		}
		t.Skipf("no user namespaces here: %v", err)
	}
}

// pipes are the init's descriptors: stdin /dev/null, stdout and stderr
// one pipe, the spec pipe (lifeline) and the status pipe.
type pipes struct {
	specR, specW, statusR, statusW, outR, outW, null *os.File
	// net, if set, is the init's end of the socket factory's socket
	// (launch.NetSockFD); parent runs beside follow, started once the
	// init is, and started once the payload is.
	net             *os.File
	parent, started func()
	initPid         int
}

func newPipes(t *testing.T) *pipes {
	var p pipes
	var err error
	if p.specR, p.specW, err = os.Pipe(); err != nil {
		t.Fatal(err)
	}
	if p.statusR, p.statusW, err = os.Pipe(); err != nil {
		t.Fatal(err)
	}
	if p.outR, p.outW, err = os.Pipe(); err != nil {
		t.Fatal(err)
	}
	if p.null, err = os.Open(os.DevNull); err != nil {
		t.Fatal(err)
	}
	return &p
}

func (p *pipes) files() []uintptr {
	fds := []uintptr{p.null.Fd(), p.outW.Fd(), p.outW.Fd(), p.specR.Fd(), p.statusW.Fd()}
	if p.net != nil {
		fds = append(fds, ^uintptr(0), p.net.Fd())
	}
	return fds
}

func (p *pipes) closeChildEnds() {
	p.specR.Close()
	p.statusW.Close()
	p.outW.Close()
	p.null.Close()
	if p.net != nil {
		p.net.Close()
	}
}

// follow reads the messages, tells the init when the payload started,
// and collects the output, until the init is gone.
func (p *pipes) follow(status io.Reader, wait func() string) outcome {
	var o outcome
	var out bytes.Buffer
	copied := make(chan struct{})
	go func() {
		_, _ = io.Copy(&out, p.outR)
		close(copied)
	}()
	if p.parent != nil {
		go p.parent()
	}
	for {
		var m launch.Msg
		if err := launch.ReadFrame(status, &m, "status"); err != nil {
			break
		}
		o.kinds = append(o.kinds, m.Kind)
		switch m.Kind {
		case launch.MsgStarted:
			_, _ = p.specW.Write([]byte{launch.CtlStarted})
			if p.started != nil {
				p.started()
			}
		case launch.MsgExit, launch.MsgError:
			o.last = m
		case launch.MsgLog:
			o.logs = append(o.logs, m.Msg)
		}
	}
	o.init = wait()
	p.specW.Close()
	<-copied
	p.outR.Close()
	p.statusR.Close()
	o.out = out.String()
	return o
}

func describe(ws unix.WaitStatus) string {
	if ws.Signaled() {
		return "killed by " + ws.Signal().String()
	}
	return "exit " + strconv.Itoa(ws.ExitStatus())
}

func idMaps() (uids, gids []syscall.SysProcIDMap) {
	return ns.Maps(os.Getuid(), os.Getuid(), os.Getgid(), os.Getgid())
}

func runGoInit(t *testing.T, spec *launch.Spec) outcome { return runGoInitOn(t, spec, newPipes(t)) }

func runGoInitOn(t *testing.T, spec *launch.Spec, p *pipes) outcome {
	bin, err := nsrunBin()
	if err != nil {
		t.Fatal(err)
	}
	uids, gids := idMaps()
	attr := &syscall.ProcAttr{Env: []string{}, Files: p.files(), Sys: &syscall.SysProcAttr{Setsid: true,
		Cloneflags: ns.CloneFlags(false), UidMappings: uids, GidMappings: gids, AmbientCaps: ns.SetupCaps}}
	pid, err := syscall.ForkExec(bin, []string{launch.InitStage}, attr)
	p.closeChildEnds()
	if err != nil {
		t.Fatalf("start the Go init: %v", err)
	}
	b, err := launch.EncodeSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.specW.Write(b); err != nil {
		t.Fatal(err)
	}
	return p.follow(p.statusR, func() string {
		var ws unix.WaitStatus
		_, _ = unix.Wait4(pid, &ws, 0, nil)
		return describe(ws)
	})
}

func runRawInit(t *testing.T, spec *launch.Spec, share bool) outcome {
	return runRawInitOn(t, spec, newPipes(t), share)
}

func runRawInitOn(t *testing.T, spec *launch.Spec, p *pipes, share bool) outcome {
	uids, gids := idMaps()
	type res struct {
		init *Init
		err  error
	}
	started, done := make(chan res), make(chan struct{})
	go func() {
		// The init's parent-death signal follows this thread.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		init, err := Start(spec, &Attr{Files: p.files(), Cloneflags: ns.CloneFlags(false), Setsid: true, UIDs: uids, GIDs: gids, ShareMemory: share})
		if err == nil && init.SharesMemory != (share && CanShareMemory && NoShareWhy(spec) == "") {
			err = fmt.Errorf("asked to share memory: %v; shares it: %v", share, init.SharesMemory)
		}
		started <- res{init, err}
		<-done
	}()
	r := <-started
	defer close(done)
	p.closeChildEnds()
	if r.err != nil {
		t.Fatalf("start the raw init: %v", r.err)
	}
	p.initPid = r.init.Pid
	return p.follow(r.init.Status(p.statusR), func() string {
		var ws unix.WaitStatus
		_, _ = unix.Wait4(r.init.Pid, &ws, 0, nil)
		return describe(ws)
	})
}

// baseSpec is a sandbox over the host's root, read-only, with /dev, /proc,
// a /tmp and the directory ws writable, in which Landlock lets the payload
// read ws but write only ws/w; the default seccomp profile; limits, a
// hostname and lo.
func baseSpec(t *testing.T, ws string, script string) *launch.Spec {
	root := identity(t, "/")
	prog, err := seccomp.Compile(seccomp.Default(seccomp.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	abi, _, err := landlock.ABI()
	if err != nil {
		t.Skipf("no Landlock: %v", err)
	}
	handled := landlock.Request{FS: landlock.FS(0x1fff)} // ABI 1 to 3
	if abi >= 5 {
		handled.FS = 0xffff
	}
	if abi >= 6 {
		handled.Scope = 3
	}
	all := handled.FS
	read := landlock.FS(0xd) // execute, read file, read dir
	return &launch.Spec{
		Args: []string{"/bin/sh", "-c", script}, Env: []string{"PATH=/usr/bin:/bin"}, Dir: ws,
		Hostname: "box", Loopback: true,
		Rlimits: []launch.Rlimit{{Name: "core"}, {Name: "nofile", Soft: 64, Hard: 64}},
		Plan: &mounts.Plan{
			Root: mounts.Op{Kind: mounts.OpBind, Path: "/", Source: "/", ID: root, ReadOnly: true, Dir: true},
			Ops: []mounts.Op{
				{Kind: mounts.OpDev, Path: "/dev", Dir: true},
				{Kind: mounts.OpProc, Path: "/proc", ReadOnly: true, Dir: true},
				{Kind: mounts.OpTmpfs, Path: "/tmp", Mode: 0o1777, Dir: true},
				{Kind: mounts.OpBind, Path: ws, Source: ws, ID: identity(t, ws), Dir: true},
			},
		},
		Landlock: &landlock.Ruleset{Handled: handled, Paths: []landlock.PathRule{
			{Path: "/", Access: read, Dir: true},
			{Path: "/dev", Access: all, Dir: true},
			{Path: "/proc", Access: read | 0x2, Dir: true},
			{Path: "/tmp", Access: all, Dir: true},
			{Path: ws, Access: read, Dir: true},
			{Path: ws + "/w", Access: all, Dir: true},
		}},
		Seccomp: []seccomp.Program{prog.Program},
	}
}

// searchDirs makes PATH entries under ws/p, each holding rawinit-cmd in
// its own way: "ok" a script that says ran, "noexec" one without execute
// permission, "isdir" a directory of that name, "denied" a directory
// nobody may search (mode 0: the payload holds no capability, root
// included), "file" a file where a directory should be. It returns a
// function that joins the named ones into a PATH.
func searchDirs(t *testing.T, ws string) func(names ...string) string {
	p := filepath.Join(ws, "p")
	for _, f := range []struct {
		path, content string
		mode          os.FileMode
	}{{"ok/rawinit-cmd", "#!/bin/sh\necho ran\n", 0o755}, {"noexec/rawinit-cmd", "#!/bin/sh\necho noexec\n", 0o644},
		{"denied/rawinit-cmd", "#!/bin/sh\necho denied\n", 0o755}, {"file", "", 0o644}} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(p, f.path)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p, f.path), []byte(f.content), f.mode); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(p, "isdir/rawinit-cmd"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(p, "denied"), 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chmod(filepath.Join(p, "denied"), 0o755) })
	return func(names ...string) string {
		var dirs []string
		for _, n := range names {
			dirs = append(dirs, filepath.Join(p, n))
		}
		return strings.Join(dirs, ":")
	}
}

func identity(t *testing.T, p string) mounts.Identity {
	var st unix.Stat_t
	if err := unix.Stat(p, &st); err != nil {
		t.Fatal(err)
	}
	return mounts.Identity{Dev: st.Dev, Ino: st.Ino}
}

func TestDifferential(t *testing.T) {
	needSandboxes(t)
	ws, err := os.MkdirTemp("/var/tmp", "rawinit-ws-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(ws) })
	if err := os.Mkdir(ws+"/w", 0o755); err != nil {
		t.Fatal(err)
	}
	probe := strings.Join([]string{
		`grep -E '^(Cap|NoNewPrivs|Seccomp)' /proc/self/status`,
		`awk '{ $1 = $2 = $3 = ""; print }' /proc/self/mountinfo`,
		`cat /proc/self/limits`,
		`hostname; pwd; id`,
		`ls -1 /dev`,
		// The mounts let both writes through; Landlock refuses the first.
		`echo x > ` + ws + `/denied; echo denied write: $?`,
		`echo y > ` + ws + `/w/allowed; echo allowed write: $?`,
		`cat ` + ws + `/w/allowed`,
		`ls ` + ws,
		`touch /etc/x; echo read-only mount: $?`,
		`tr -d '\0' < /proc/1/cmdline; echo`,
		`ps -eo args`,
		`exit 3`,
	}, "; ")
	if err := os.Mkdir(ws+"/w/dir", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(ws+"/w/dir/x", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("dir", ws+"/w/link"); err != nil {
		t.Fatal(err)
	}
	pathDirs := searchDirs(t, ws)
	files, filesProbe := sandboxFiles(t, ws)
	inPath := func(name string, dirs ...string) func(*launch.Spec) {
		return func(s *launch.Spec) {
			s.Args = []string{name}
			s.Env = []string{"PATH=" + pathDirs(dirs...)}
		}
	}
	missing := func(s *launch.Spec) {
		s.Plan.Ops = append(s.Plan.Ops, mounts.Op{Kind: mounts.OpTmpfs, Path: "/rawinit-no-such-dir", Mode: 0o755, Dir: true})
	}
	cases := []struct {
		name   string
		script string
		edit   func(*launch.Spec)
		// errText is what both error messages say, where the two inits
		// word the rest differently.
		errText string
		// contains is what the output of both must hold: each layer
		// decided.
		contains []string
		// walk has the raw init walk paths as it does where openat2 is
		// refused (a nested sandbox).
		walk bool
	}{
		{name: "probe", script: probe, contains: []string{"denied: Permission denied\ndenied write: 2", "allowed write: 0", "read-only mount: 1",
			"NoNewPrivs:\t1", "Seccomp:\t2", "CapEff:\t0000000000000000", "CapBnd:\t0000000000000000",
			"Max open files            64", "\nbox\n", "\nnsrun-init\n"}},
		{name: "probe, paths walked", script: probe, walk: true, contains: []string{"denied: Permission denied\ndenied write: 2", "allowed write: 0",
			"read-only mount: 1"}},
		{name: "killed", script: "kill -KILL $$"},
		// The soft RLIMIT_NOFILE this process started with, which the Go
		// runtime raised for itself (4095 under 1024:4096, and once
		// as nsrun-test where the Go init's payload had 1024).
		{name: "nofile as started", script: "ulimit -Sn; ulimit -Hn", edit: func(s *launch.Spec) { s.Rlimits = nil }},
		{name: "optional mount point missing", script: "ls /rawinit-no-such-dir; echo $?", edit: func(s *launch.Spec) {
			missing(s)
			s.Plan.Ops[len(s.Plan.Ops)-1].Optional = true
		}},
		{name: "mount point missing", script: "true", edit: missing, errText: "/rawinit-no-such-dir"},
		{name: "source changed", script: "true", edit: func(s *launch.Spec) { s.Plan.Ops[3].ID.Ino++ },
			errText: "names another file than the one checked"},
		{name: "optional mount point missing, paths walked", script: "ls /rawinit-no-such-dir; echo $?", walk: true, edit: func(s *launch.Spec) {
			missing(s)
			s.Plan.Ops[len(s.Plan.Ops)-1].Optional = true
		}},
		{name: "mount point missing, paths walked", script: "true", edit: missing, errText: "/rawinit-no-such-dir", walk: true},
		{name: "a symlink on the way, paths walked", script: "true", walk: true, errText: "/w/link/x", edit: func(s *launch.Spec) {
			s.Plan.Ops = append(s.Plan.Ops, mounts.Op{Kind: mounts.OpTmpfs, Path: ws + "/w/link/x", Mode: 0o755, Dir: true})
		}},
		{name: "root changed", script: "true", edit: func(s *launch.Spec) { s.Plan.Root.ID.Ino++ },
			errText: "names another file than the one checked"},
		{name: "landlock rule changed", script: "true", edit: func(s *launch.Spec) {
			s.Landlock.Paths[4].ID = landlock.Identity{Dev: 1, Ino: 1}
		}, errText: ws},
		{name: "not found", script: "", edit: func(s *launch.Spec) { s.Args = []string{"/rawinit/none"} }, errText: "/rawinit/none"},
		{name: "not found in PATH", script: "", edit: func(s *launch.Spec) { s.Args = []string{"rawinit-none"} }, errText: "rawinit-none"},
		{name: "not executable", script: "", edit: func(s *launch.Spec) { s.Args = []string{"/etc/passwd"} }, errText: "/etc/passwd"},
		// execvp's search, as the Go init's lookPath and os/exec's
		// LookPath do it: an entry that cannot be searched, a file
		// as an entry, a copy that may not be executed and a
		// directory of the name are passed over for the one that runs
		// (this user's PATH held a directory it cannot enter: the raw
		// init answered 126 where the Go init ran the command).
		{name: "PATH: passed over", edit: inPath("rawinit-cmd", "denied", "file", "noexec", "isdir", "ok"), contains: []string{"ran\n"}},
		{name: "PATH: the first denial", edit: inPath("rawinit-cmd", "denied", "noexec", "isdir"), errText: "noexec/rawinit-cmd"},
		{name: "PATH: a directory first", edit: inPath("rawinit-cmd", "isdir", "noexec"), errText: "isdir/rawinit-cmd"},
		{name: "PATH: nothing that can be searched", edit: inPath("rawinit-cmd", "denied", "file"), errText: "rawinit-cmd"},
		{name: "by path: in a directory that cannot be searched", edit: func(s *launch.Spec) { s.Args = []string{pathDirs("denied") + "/rawinit-cmd"} }},
		{name: "by path: a directory", edit: func(s *launch.Spec) { s.Args = []string{pathDirs("isdir") + "/rawinit-cmd"} }},
		{name: "by path: under a file", edit: func(s *launch.Spec) { s.Args = []string{pathDirs("file") + "/rawinit-cmd"} }},
		// Denied files and files of the sandbox's own, and what the
		// payload tries on them: the mounts alone refuse it (Landlock
		// lets everything through in w).
		{name: "files", script: filesProbe, edit: files, contains: []string{
			"== hosts\n444 24 regular file\n", "127.0.0.1 localhost box\n[end]", "== resolv.conf\n640 ", "nameserver 127.0.0.1\n[end]",
			"== secret\n444 0 regular empty file\nowner ", "append: 2", "O_WRONLY|O_TRUNC: 2", "truncate: 1", "chmod: 1",
			"rename over: 1", "unlink: 1", "bind over: 32", "Read-only file system", "/file1 " + ws + "/w/hosts ro,nosuid,nodev,noexec",
			"/file2 " + ws + "/w/resolv.conf ro,nosuid,nodev,noexec", "/empty " + ws + "/w/secret ro,nosuid,nodev,noexec"}},
		{name: "files, paths walked", script: filesProbe, edit: files, walk: true, contains: []string{"== secret\n444 0 regular empty file\nowner ",
			"/file2 " + ws + "/w/resolv.conf ro,nosuid,nodev,noexec"}},
		{name: "a file on a directory", script: "true", errText: "file " + ws + "/w/dir: move_mount on " + ws + "/w/dir", edit: func(s *launch.Spec) {
			s.Plan.Ops = append(s.Plan.Ops, mounts.Op{Kind: mounts.OpFile, Path: ws + "/w/dir", ReadOnly: true, Content: "x"})
		}},
		{name: "a denied file on a directory", script: "true", errText: "deny " + ws + "/w/dir: move_mount on " + ws + "/w/dir", edit: func(s *launch.Spec) {
			s.Plan.Ops = append(s.Plan.Ops, mounts.Op{Kind: mounts.OpEmptyFile, Path: ws + "/w/dir", ReadOnly: true})
		}},
		{name: "a file on a symlink", script: "true", errText: ws + "/w/link", edit: func(s *launch.Spec) {
			s.Plan.Ops = append(s.Plan.Ops, mounts.Op{Kind: mounts.OpFile, Path: ws + "/w/link", ReadOnly: true, Content: "x"})
		}},
		{name: "a denied file missing", script: "true", errText: ws + "/w/nope", edit: func(s *launch.Spec) {
			s.Plan.Ops = append(s.Plan.Ops, mounts.Op{Kind: mounts.OpEmptyFile, Path: ws + "/w/nope", ReadOnly: true})
		}},
		{name: "an optional file missing", script: "ls " + ws + "/w/nope; grep -c /file /proc/self/mountinfo", edit: func(s *launch.Spec) {
			files(s)
			s.Plan.Ops = append(s.Plan.Ops, mounts.Op{Kind: mounts.OpFile, Path: ws + "/w/nope", ReadOnly: true, Content: "x", Optional: true})
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			spec := func() *launch.Spec {
				s := baseSpec(t, ws, c.script)
				if c.edit != nil {
					c.edit(s)
				}
				return s
			}
			if err := Supports(spec()); err != nil {
				t.Fatal(err)
			}
			// The view shows the host's mounts: compare two runs only
			// while the host's mount table stood still across both (a
			// container started meanwhile adds one).
			var goRun, rawRun, sharedRun outcome
			for try := 0; ; try++ {
				before, _ := os.ReadFile("/proc/self/mountinfo")
				goRun = runGoInit(t, spec())
				walkPaths = c.walk
				rawRun = runRawInit(t, spec(), false)
				_ = os.Remove(ws + "/w/allowed")
				if CanShareMemory {
					sharedRun = runRawInit(t, spec(), true)
				}
				walkPaths = false
				after, _ := os.ReadFile("/proc/self/mountinfo")
				if string(before) == string(after) || try == 4 {
					break
				}
			}
			_ = os.Remove(ws + "/w/allowed")
			if CanShareMemory {
				// The init that shares this process's memory builds
				// the same sandbox, but hides pid 1 from the payload
				// (hidepid=ptraceable).
				if pid1Blind(sharedRun.out) != pid1Blind(rawRun.out) || strings.Join(sharedRun.kinds, " ") != strings.Join(rawRun.kinds, " ") || sharedRun.last.Msg != rawRun.last.Msg || sharedRun.init != rawRun.init {
					t.Errorf("sharing memory:\n copy: %s %v %+v %s\nshared: %s %v %+v %s", rawRun.out, rawRun.kinds, rawRun.last, rawRun.init, sharedRun.out, sharedRun.kinds, sharedRun.last, sharedRun.init)
				}
			}
			if goRun.out != rawRun.out {
				t.Errorf("output:\n go: %s\nraw: %s", goRun.out, rawRun.out)
			}
			if strings.Join(goRun.kinds, " ") != strings.Join(rawRun.kinds, " ") {
				t.Errorf("messages: go %v, raw %v", goRun.kinds, rawRun.kinds)
			}
			g, r := goRun.last, rawRun.last
			if g.Kind != r.Kind || g.Code != r.Code || g.Signal != r.Signal || g.Errno != r.Errno || goRun.init != rawRun.init {
				t.Errorf("how it ended:\n go: %+v, init %s\nraw: %+v, init %s", g, goRun.init, r, rawRun.init)
			}
			if (g.Usage == nil) != (r.Usage == nil) {
				t.Errorf("usage: go %+v, raw %+v", g.Usage, r.Usage)
			}
			for _, w := range c.contains {
				if !strings.Contains(goRun.out, w) || !strings.Contains(rawRun.out, w) {
					t.Errorf("the output of both should hold %q:\n go: %s\nraw: %s", w, goRun.out, rawRun.out)
				}
			}
			if c.errText != "" && (!strings.Contains(g.Msg, c.errText) || !strings.Contains(r.Msg, c.errText)) {
				t.Errorf("messages do not both say %q:\n go: %s\nraw: %s", c.errText, g.Msg, r.Msg)
			}
			t.Logf("go: %s %+v\nraw: %s %+v", goRun.init, g, rawRun.init, r)
		})
	}
}

// sandboxFiles makes w/hosts, w/resolv.conf and w/secret in ws, and
// returns an edit that covers the first two with files of the sandbox's
// own (the second with a mode of its own) and denies the third, after an
// optional denied file whose mount point is missing (the scratch tmpfs is
// made by the op after it), and the payload's probe: each file's mode,
// owner, size and content, then each way to change or replace it, with
// its status and message, and the files' mountinfo lines.
func sandboxFiles(t *testing.T, ws string) (func(*launch.Spec), string) {
	for name, content := range map[string]string{"hosts": "host's hosts\n", "resolv.conf": "host's resolv.conf\n", "secret": "secret\n"} {
		if err := os.WriteFile(filepath.Join(ws, "w", name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	edit := func(s *launch.Spec) {
		s.Plan.Ops = append(s.Plan.Ops,
			mounts.Op{Kind: mounts.OpEmptyFile, Path: ws + "/w/.npmrc", ReadOnly: true, Optional: true},
			mounts.Op{Kind: mounts.OpFile, Path: ws + "/w/hosts", ReadOnly: true, Content: "127.0.0.1 localhost box\n"},
			mounts.Op{Kind: mounts.OpFile, Path: ws + "/w/resolv.conf", ReadOnly: true, Content: "nameserver 127.0.0.1\n", FileMode: 0o640},
			mounts.Op{Kind: mounts.OpEmptyFile, Path: ws + "/w/secret", ReadOnly: true})
	}
	probe := `cd w; for f in hosts resolv.conf secret; do
echo "== $f"; stat -c '%a %s %F' $f; stat -c 'owner %u %g' $f; cat $f; echo "[end]"
(echo x >> $f) 2>&1; echo "append: $?"
(: > $f) 2>&1; echo "O_WRONLY|O_TRUNC: $?"
truncate -s 0 $f 2>&1; echo "truncate: $?"
chmod 666 $f 2>&1; echo "chmod: $?"
chown "$(id -u)" $f 2>&1; echo "chown: $?"
touch $f 2>&1; echo "touch: $?"
echo y > other; mv -f other $f 2>&1; echo "rename over: $?"
mv $f moved 2>&1; echo "rename away: $?"
rm -f $f 2>&1; echo "unlink: $?"
ln -f other $f 2>&1; echo "link over: $?"
mount --bind other $f 2>&1; echo "bind over: $?"
umount $f 2>&1; echo "umount: $?"
stat -c '%a %s' $f; cat $f; echo "[end]"
done; rm -f other
awk '$5 ~ /\/w\// { $1 = $2 = $3 = ""; print }' /proc/self/mountinfo`
	return edit, probe
}

// pid1Blind is out as a payload sees it when pid 1 is hidden from it: no
// line of pid 1's (its command line, as the probe prints it and ps shows
// it), no blank line its missing command line leaves, no complaint about
// it, and the mount option not shown.
func pid1Blind(out string) string {
	var kept []string
	for _, l := range strings.Split(strings.ReplaceAll(out, ",hidepid=ptraceable", ""), "\n") {
		if l != "nsrun-init" && l != "" && !strings.Contains(l, "/proc/1/cmdline") {
			kept = append(kept, l)
		}
	}
	return strings.Join(kept, "\n")
}
