//go:build linux

package integration

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// TestSharedMemory: NSRUN_SHARE_MEMORY=1 (nsrun.Cmd.ShareMemory) has the
// raw init share nsrun's memory, for root and other users alike. -v says
// so; and nothing in the sandbox reaches nsrun's memory through pid 1:
// /proc/1 is hidden (its command line, nsrun's, too), and ptrace cannot
// attach to it, as with the init that has a copy, whose /proc/1 files that
// read its memory or descriptors cannot be opened. Pid 1 stays dumpable
// (the flag is nsrun's as well) and keeps a capability the payload lacks:
// were that left out, each of these would succeed (the payload has pid
// 1's user ids).
func TestSharedMemory(t *testing.T) {
	need(t)
	ws := workspace(t)
	base := noShims(workspace(t))
	probe := strings.Join([]string{
		`tr '\0' ' ' </proc/1/cmdline; echo`,
		`for f in environ maps mem auxv; do (: </proc/1/$f) 2>/dev/null && echo $f: opened || echo $f: refused; done`,
		`readlink /proc/1/fd/0 >/dev/null 2>&1 && echo fd: read || echo fd: refused`,
		`readlink /proc/1/exe >/dev/null 2>&1 && echo exe: read || echo exe: refused`,
		`grep -q '^CapPrm:.0000000000000000$' /proc/self/status && echo caps: none || grep Cap /proc/self/status`,
	}, "; ")
	refused := "environ: refused\nmaps: refused\nmem: refused\nauxv: refused\nfd: refused\nexe: refused\ncaps: none"
	if runtime.GOARCH == "amd64" {
		// ptrace(PTRACE_SEIZE, 1, 0, 0): refused, or pid 1 traced
		// (which, unlike PTRACE_ATTACH, does not stop it).
		probe += "; " + syscBin + " raw 101 16902 1 0 0"
		refused += "\nEPERM"
	}
	args := []string{"-v", "--rw", ws, "--", "/bin/sh", "-c", probe}
	// pid 1's command line, and what the payload could reach of it.
	split := func(r result) (string, string) {
		first, rest, _ := strings.Cut(r.stdout, "\n")
		return strings.TrimSpace(first), rest
	}

	copied := runBase(t, ws, base, []string{"NSRUN_SHARE_MEMORY=0"}, args...)
	if cmdline, rest := split(copied); copied.code != 0 || cmdline != "nsrun-init" || rest != refused {
		t.Errorf("the raw init with a copy: want exit 0, nsrun-init and\n%s\n%v", refused, copied)
	}
	shared := runBase(t, ws, base, []string{"NSRUN_SHARE_MEMORY=1"}, args...)
	if runtime.GOARCH != "amd64" {
		if !strings.Contains(shared.stderr, "shared memory is not supported here") {
			t.Errorf("-v should say the init got a copy:\n%v", shared)
		}
		return
	}
	if !strings.Contains(shared.stderr, ", sharing this process's memory") {
		t.Fatalf("-v should say the init shares nsrun's memory:\n%v", shared)
	}
	// pid 1 is hidden (hidepid=ptraceable): nothing of /proc/1 opens, its
	// command line (nsrun's) included.
	// (The output's blank first line is trimmed.)
	if shared.code != 0 || shared.stdout != refused || !strings.Contains(shared.stderr, "/proc/1/cmdline: No such file") {
		t.Errorf("sharing nsrun's memory: want exit 0, no command line for pid 1, and\n%s\ngot %v", refused, shared)
	}
}

// TestSharedMemoryUnderAMemoryLimit: the kernel's OOM killer kills, with
// the process it picks, every process sharing that process's memory. Under
// --memory it picks among the sandbox's processes, and pid 1 sharing nsrun's
// memory counts nsrun's resident memory as its own: a payload of many
// small processes makes it the largest, and its OOM kill then killed nsrun
// (a library program, with every other sandbox's shared init) by SIGKILL.
// Under a memory limit the init gets a copy, and nsrun outlives the OOM
// kills (pid 1's among them, as with any init that has a copy) and reports
// them.
func TestSharedMemoryUnderAMemoryLimit(t *testing.T) {
	need(t)
	if runtime.GOARCH != "amd64" {
		t.Skip("shared memory is amd64's")
	}
	ws := workspace(t)
	// Fifty shells of about 1.5 MB each, each smaller than nsrun.
	hog := `for i in $(seq 50); do sh -c 'x=$(head -c 1500000 /dev/zero | tr "\0" a); sleep 3' & done; wait`
	r := runBase(t, ws, noShims(workspace(t)), []string{"NSRUN_SHARE_MEMORY=1"}, "-v", "--memory", "32M", "--rw", ws, "--", "/bin/sh", "-c", hog)
	// Root can always make the cgroup, but not in a container, whose
	// hierarchy is read-only (as TestCgroupLimits).
	if r.code == 125 && strings.Contains(r.stderr, "--memory") && (os.Getuid() != 0 || os.Getenv("NSRUN_SHAPE") != "") {
		t.Skipf("no cgroup for --memory here: %s", r.stderr)
	}
	if r.code == -1 || !strings.Contains(r.stderr, "memory limit 32M reached") {
		t.Errorf("want nsrun to outlive the OOM kills and report them:\n%v", r)
	}
	if !strings.Contains(r.stderr, "a copy of this process's memory (the sandbox has a memory limit") {
		t.Errorf("-v should say why the init did not share nsrun's memory:\n%v", r)
	}
}

// TestSharedMemoryOOMScore: the kernel keeps one oom_score_adj for the
// processes that share a memory, and writing pid 1's sets it for all of
// them. Root's payload is uid 0, the owner of pid 1's /proc files (root's,
// pid 1 being not dumpable), so it could raise nsrun's (a library
// program's, with every sandbox sharing it) to 1000: the first process the
// kernel kills when the host runs out of memory, which the payload can then
// bring about. With an init that has a copy only the init's changes.
func TestSharedMemoryOOMScore(t *testing.T) {
	need(t)
	if runtime.GOARCH != "amd64" {
		t.Skip("shared memory is amd64's")
	}
	ws := workspace(t)
	own, err := os.ReadFile("/proc/self/oom_score_adj")
	if err != nil {
		t.Fatal(err)
	}
	for _, share := range []string{"0", "1"} {
		cmd := exec.Command(nsrunBin, "--rw", ws, "--", "/bin/sh", "-c", "echo 1000 >/proc/1/oom_score_adj 2>/dev/null; echo written; read _")
		cmd.Dir = ws
		cmd.Env = append(noShims(workspace(t)), "NSRUN_SHARE_MEMORY="+share)
		stdin, stdout := startPiped(t, cmd)
		line, _ := stdout.ReadString('\n')
		score, err := os.ReadFile(fmt.Sprintf("/proc/%d/oom_score_adj", cmd.Process.Pid))
		stdin.Close()
		_ = cmd.Wait()
		if line != "written\n" || err != nil {
			t.Fatalf("NSRUN_SHARE_MEMORY=%s: the payload said %q; %v", share, line, err)
		}
		if string(score) != string(own) {
			t.Errorf("NSRUN_SHARE_MEMORY=%s: the payload set nsrun's oom_score_adj to %s", share, score)
		}
	}
}

// TestSharedMemoryNoCore: a pid 1 that shares nsrun's memory is dumpable
// (the flag is nsrun's too), so a signal that dumps core would write
// nsrun's memory into its working directory, the sandbox's: its core
// limit is 0, soft and hard (the payload, pid 1's user, may set pid 1's
// limits, but cannot raise a hard one). The payload, vforked, shares the
// memory until its exec: one that may dump core (--rlimit core) gets an
// init with a copy, and -v says why.
func TestSharedMemoryNoCore(t *testing.T) {
	need(t)
	if runtime.GOARCH != "amd64" {
		t.Skip("shared memory is amd64's")
	}
	ws := workspace(t)
	cmd := exec.Command(nsrunBin, "-v", "--rw", ws, "--", "/bin/sh", "-c",
		`echo $(ulimit -c) $(ulimit -Hc); prlimit --pid 1 --core=512000:1024000 2>/dev/null && echo raised || echo refused; read _`)
	cmd.Dir = ws
	cmd.Env = append(noShims(workspace(t)), "NSRUN_SHARE_MEMORY=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdin, r := startPiped(t, cmd)
	limits, _ := r.ReadString('\n')
	raise, _ := r.ReadString('\n')
	init := childOf(t, cmd.Process.Pid)
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/limits", init))
	stdin.Close()
	_ = cmd.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr.String(), ", sharing this process's memory") {
		t.Fatalf("-v should say the init shares nsrun's memory:\n%s", stderr.String())
	}
	if limits != "0 0\n" || raise != "refused\n" {
		t.Errorf("the payload's core limit %q, want 0 0; raising pid 1's: %q", limits, raise)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); strings.HasPrefix(l, "Max core file size") && (len(f) < 6 || f[4] != "0" || f[5] != "0") {
			t.Errorf("pid 1 (%d) may dump core: %s", init, l)
		}
	}

	asked := runBase(t, ws, noShims(workspace(t)), []string{"NSRUN_SHARE_MEMORY=1"}, "-v", "--rlimit", "core=512000:1024000", "--rw", ws, "--", "/bin/sh", "-c", `echo $(ulimit -c) $(ulimit -Hc)`)
	if asked.code != 0 || strings.TrimSpace(asked.stdout) != "1000 2000" || !strings.Contains(asked.stderr, ", a copy of this process's memory (the payload, which shares it until its exec, may dump core: RLIMIT_CORE 512000:1024000)") {
		t.Errorf("a payload that may dump core: want its limit (1000 2000 blocks) and an init with a copy:\n%v", asked)
	}
}

// startPiped starts cmd with its standard input and output on pipes.
func startPiped(t *testing.T, cmd *exec.Cmd) (io.WriteCloser, *bufio.Reader) {
	t.Helper()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return stdin, bufio.NewReader(stdout)
}

// childOf is the one child of pid, whichever of its threads started it.
func childOf(t *testing.T, pid int) int {
	t.Helper()
	tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	var kids []string
	for _, task := range tasks {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/children", pid, task.Name()))
		kids = append(kids, strings.Fields(string(b))...)
	}
	if len(kids) != 1 {
		t.Fatalf("pid %d has children %v, want one", pid, kids)
	}
	n, err := strconv.Atoi(kids[0])
	if err != nil {
		t.Fatal(err)
	}
	return n
}
