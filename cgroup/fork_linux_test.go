package cgroup

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/seccomp"
)

// Where clone3 is refused (ENOSYS), a child asked to be born in a cgroup
// v2 is started outside it, with the movedIn arguments, and is in the
// cgroup when ForkExec returns: so the init (full mode, directly or
// through the fork helper) gets there as the Landlock-only stage does. A
// process of its own runs the test under the filter, loaded as a
// container's runtime would have.
func TestForkExecWhereClone3IsRefused(t *testing.T) {
	if os.Getenv("NSRUN_TEST_NO_CLONE3") != "1" {
		g := NewKill()
		if g == nil {
			t.Skip("no cgroup v2 this user may make groups in")
		}
		g.Remove()
		cmd := exec.Command(os.Args[0], "-test.run=^TestForkExecWhereClone3IsRefused$", "-test.v", "-test.count=1")
		cmd.Env = append(os.Environ(), "NSRUN_TEST_NO_CLONE3=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS") {
			t.Fatalf("under the filter: %v\n%s", err, out)
		}
		return
	}
	// The filter is this thread's; ForkExec forks from it.
	runtime.LockOSThread()
	prog, err := seccomp.Compile(seccomp.Profile{Name: "no-clone3", DefaultAction: seccomp.Action{Kind: seccomp.ActAllow},
		Rules: []seccomp.Rule{{Names: []string{"clone3"}, Action: seccomp.Action{Kind: seccomp.ActErrno, Errno: uint16(unix.ENOSYS)}}}})
	if err != nil {
		t.Fatal(err)
	}
	g := NewKill()
	if g == nil {
		t.Fatal("no cgroup")
	}
	defer g.Remove()
	if err := seccomp.Load(prog.Program); err != nil {
		t.Fatal(err)
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	fd, born := g.CloneFD()
	pidfd := -1
	attr := &syscall.ProcAttr{Files: []uintptr{inR.Fd(), outW.Fd(), 2},
		Sys: &syscall.SysProcAttr{UseCgroupFD: born, CgroupFD: fd, PidFD: &pidfd}}
	// The child waits for a line, as the init waits for its spec.
	pid, err := ForkExec("/bin/sh", []string{"sh", "-c", `read x; echo "$@"; cat /proc/self/cgroup`, "sh"}, attr, "moved-in")
	inR.Close()
	outW.Close()
	if err != nil {
		t.Fatalf("ForkExec: %v", err)
	}
	defer unix.Close(pidfd)
	inW.Write([]byte("go\n"))
	inW.Close()
	s := bufio.NewScanner(outR)
	var lines []string
	for s.Scan() {
		lines = append(lines, s.Text())
	}
	var ws unix.WaitStatus
	unix.Wait4(pid, &ws, 0, nil)
	in := false
	for _, l := range lines {
		in = in || strings.HasPrefix(l, "0::") && strings.HasSuffix(l, "/"+filepath.Base(g.Dir()))
	}
	if len(lines) == 0 || lines[0] != "moved-in" || !in || ws.ExitStatus() != 0 {
		t.Errorf("the child's arguments and cgroup: %q (exit %d), want moved-in and 0::…/%s", lines, ws.ExitStatus(), filepath.Base(g.Dir()))
	}
}
