//go:build linux

package integration

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// failedReport is what a report says about the layers.
type failedReport struct {
	Enforcement string          `json:"enforcement"`
	Namespaces  map[string]bool `json:"namespaces"`
	Filesystem  struct {
		RW, RO, Deny, Tmpfs []string
	} `json:"filesystem"`
	Landlock struct {
		Status string `json:"status"`
	} `json:"landlock"`
	Seccomp struct {
		Status          string `json:"status"`
		SyscallsBlocked int    `json:"syscalls_blocked"`
	} `json:"seccomp"`
	Limits map[string]string `json:"limits"`
	Exit   struct {
		Code int `json:"code"`
	} `json:"exit"`
	Error string `json:"error"`
}

// assertClaimsNothing checks the report of a sandbox that was not built:
// exit 125, the error, and no layer, mount or limit claimed.
func assertClaimsNothing(t *testing.T, reportPath string, r result, why string) {
	t.Helper()
	if r.code != 125 || !strings.Contains(r.stderr, why) {
		t.Errorf("want exit 125 naming %q: %v", why, r)
	}
	b, err := os.ReadFile(reportPath)
	if err != nil {
		t.Fatalf("no report: %v (%v)", err, r)
	}
	var rep failedReport
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatalf("report: %v\n%s", err, b)
	}
	if rep.Enforcement != "none" || rep.Landlock.Status != "none" || rep.Seccomp.Status != "none" || rep.Seccomp.SyscallsBlocked != 0 {
		t.Errorf("a sandbox that was not built is reported as enforced:\n%s", b)
	}
	for name, on := range rep.Namespaces {
		if on {
			t.Errorf("namespace %s reported for a sandbox that was not built:\n%s", name, b)
		}
	}
	if n := len(rep.Filesystem.RW) + len(rep.Filesystem.RO) + len(rep.Filesystem.Deny) + len(rep.Filesystem.Tmpfs); n != 0 || len(rep.Limits) != 0 {
		t.Errorf("mounts or limits reported for a sandbox that was not built:\n%s", b)
	}
	if rep.Exit.Code != 125 || !strings.Contains(rep.Error, why) {
		t.Errorf("the report's exit and error: %d %q, want 125 and %q", rep.Exit.Code, rep.Error, why)
	}
}

func TestFailedReportRulePath(t *testing.T) {
	ws := workspace(t)
	rep := filepath.Join(ws, "report.json")
	args := []string{"--report", rep, "--ro", "/no/such/dir", "--", "/bin/true"}
	if os.Getuid() == 0 && os.Getenv("NSRUN_SHAPE") == "" {
		// Root can make the cgroup, which is then removed, not reported.
		args = append([]string{"--pids", "50"}, args...)
	}
	r := run(t, ws, args...)
	assertClaimsNothing(t, rep, r, "/no/such/dir")
}

// A host that forbids user namespaces, simulated in a user namespace of
// the test's own where user.max_user_namespaces is 0.
func TestFailedReportUsernsRefused(t *testing.T) {
	need(t)
	ws := workspace(t)
	rep := filepath.Join(ws, "report.json")
	r := shell(t, "unshare -Ur sh -c 'echo 0 > /proc/sys/user/max_user_namespaces && exec "+nsrunBin+" --report "+rep+" -- /bin/true'")
	assertClaimsNothing(t, rep, r, "user.max_user_namespaces=0")
}

// A fresh procfs refused, as under a container runtime's masked /proc:
// in a user and mount namespace of the test's own, a file of /proc is
// covered by a bind.
func TestFailedReportProcfsRefused(t *testing.T) {
	need(t)
	ws := workspace(t)
	rep := filepath.Join(ws, "report.json")
	r := shell(t, inMaskedProc(t, nsrunBin+" --report "+rep+" -- /bin/true"))
	assertClaimsNothing(t, rep, r, "masked")
}

// The seccomp filter refused by the kernel: nsrun runs inside a sandbox
// whose profile refuses seccomp(2) itself.
func TestFailedReportSeccompRefused(t *testing.T) {
	ws := workspace(t)
	prof := filepath.Join(ws, "no-seccomp.json")
	writeFile(t, prof, `{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"names": ["seccomp"], "action": "SCMP_ACT_ERRNO", "errnoRet": 1}]}`)
	modes := [][]string{{"--isolation", "landlock"}}
	if os.Getuid() != 0 {
		// A nested sandbox with namespaces works for a caller that is
		// not the host's root (docs/MANUAL.md, "seccomp").
		modes = append(modes, nil)
	}
	for _, mode := range modes {
		rep := filepath.Join(ws, "report.json")
		os.Remove(rep)
		outer := []string{"--rw", ws, "--seccomp", prof}
		if mode == nil {
			outer = append(outer, "--allow-userns", "--landlock", "off")
		}
		args := append(append(append(outer, "--", nsrunBin), mode...), "--report", rep, "--", "/bin/true")
		r := run(t, ws, args...)
		assertClaimsNothing(t, rep, r, "SECCOMP_SET_MODE_FILTER: operation not permitted")
	}
}

// inMaskedProc is a shell command line that runs line in new user and
// mount namespaces where a file of /proc is covered by a bind, as
// container runtimes mask /proc; the cover reads "masked".
func inMaskedProc(t *testing.T, line string) string {
	cover := filepath.Join(workspace(t), "cover")
	writeFile(t, cover, "masked\n")
	return "unshare -Urm --propagation private sh -c 'for f in /proc/kcore /proc/keys /proc/timer_list; do " +
		"[ -e $f ] && mount --bind " + cover + " $f && break; done && exec sh -c \"$0\"' " + shellQuote(line)
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// shell runs a shell command line and returns how it ended.
func shell(t *testing.T, line string) result {
	t.Helper()
	need(t)
	cmd := exec.Command("/bin/sh", "-c", line)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("sh -c %q: %v", line, err)
	}
	return result{stdout: strings.TrimSpace(stdout.String()), stderr: strings.TrimSpace(stderr.String()), code: code}
}
