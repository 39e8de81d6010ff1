//go:build linux

package integration

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hostProcProbe, run in a --proc host sandbox, tries what a /proc that
// lists processes outside the sandbox offers; VICTIM is a process outside.
// nsrun is found as the parent of the sandbox's init.
const hostProcProbe = `
try() { if "$@" >/dev/null 2>&1; then echo "$1 $2: allowed"; else echo "$1 $2: refused"; fi; }
init=$(awk '/^PPid/ {print $2}' /proc/self/status)
nsrun=$(awk '/^PPid/ {print $2}' /proc/$init/status)
echo "self: $(cat /proc/self/comm)"
for f in /proc/kcore /proc/keys /proc/timer_list; do [ -e $f ] && echo "$f: $(cat $f)" && break; done
try cat /proc/$nsrun/environ
try ls /proc/$nsrun/root/
try ls /proc/$nsrun/cwd/
try cat /proc/$nsrun/fd/0
try cat /proc/$nsrun/mem
try cat /proc/$nsrun/maps
try cat /proc/$VICTIM/environ
try sh -c 'echo x > /proc/sys/kernel/hostname'
try sh -c 'echo 0 > /proc/self/oom_score_adj'
try python3 -c "import os, signal; signal.pidfd_send_signal(os.open('/proc/$VICTIM', os.O_RDONLY), signal.SIGTERM)"
`

// --proc host where a fresh procfs is refused (a masked /proc, simulated
// as in TestFailedReportProcfsRefused): the sandbox runs, the masks stay,
// nothing of /proc can be written, the entries of processes outside that
// ptrace checks guard stay out of reach (Landlock), none of them can be
// signalled, and the report says the /proc is the host's and the
// enforcement partial. --strict refuses it, and so does --landlock off.
func TestHostProcWhereProcfsIsRefused(t *testing.T) {
	ws := workspace(t)
	script := filepath.Join(ws, "probe.sh")
	writeFile(t, script, hostProcProbe)
	rep := filepath.Join(ws, "report.json")
	r := shell(t, inMaskedProc(t, nsrunBin+" -- /bin/true; echo fresh=$?; sleep 60 & VICTIM=$! "+
		nsrunBin+" -q --proc host --ro "+ws+" --report "+rep+" -- /bin/sh "+script+"; echo host=$?; "+
		"kill -0 $! && echo victim alive; kill $!; "+
		nsrunBin+" --proc host --strict -- /bin/true; echo strict=$?; "+
		nsrunBin+" --proc host --landlock off -- /bin/true; echo landlock-off=$?"))
	want := []string{
		"fresh=125", "self: cat", ": masked\n",
		"cat /proc/" /* nsrun's environ */, "ls /proc/", "host=0", "victim alive", "strict=125", "landlock-off=125",
	}
	for _, w := range want {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("want %q in the output:\n%s\n%s", w, r.stdout, r.stderr)
		}
	}
	if strings.Contains(r.stdout, ": allowed") {
		t.Errorf("the payload reached what --proc host must keep out of reach:\n%s", r.stdout)
	}
	if n := strings.Count(r.stdout, ": refused"); n != 10 {
		t.Errorf("%d attempts refused, want 10:\n%s", n, r.stdout)
	}
	for _, w := range []string{"--proc host binds that /proc read-only instead", "--strict: not fully enforced: a private /proc (--proc host)", "--proc host needs Landlock"} {
		if !strings.Contains(r.stderr, w) {
			t.Errorf("want %q on stderr:\n%s", w, r.stderr)
		}
	}
	assertHostProcReport(t, rep)
}

// --proc host is the caller's choice, not a fallback: where a fresh procfs
// works it binds the host's all the same, and says so.
func TestHostProcIsAChoice(t *testing.T) {
	ws := workspace(t)
	rep := filepath.Join(ws, "report.json")
	r := run(t, ws, "--proc", "host", "--report", rep, "--", "/bin/sh", "-c", "cat /proc/1/comm")
	if r.code != 0 || r.stdout == "nsrun-init" {
		t.Errorf("/proc/1 of the host's /proc is not nsrun's init: %v", r)
	}
	assertHostProcReport(t, rep)
	r = run(t, ws, "--proc", "hostile", "--", "/bin/true")
	if r.code != 125 || !strings.Contains(r.stderr, "--proc") || !strings.Contains(r.stderr, "want private or host") {
		t.Errorf("unknown --proc value: %v", r)
	}
}

func assertHostProcReport(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Enforcement string          `json:"enforcement"`
		Namespaces  map[string]bool `json:"namespaces"`
		Filesystem  struct {
			Proc string `json:"proc"`
		} `json:"filesystem"`
		NotEnforced []string `json:"not_enforced"`
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Enforcement != "partial" || rep.Filesystem.Proc != "host" || !rep.Namespaces["pid"] ||
		len(rep.NotEnforced) != 1 || !strings.HasPrefix(rep.NotEnforced[0], "private /proc") {
		t.Errorf("report of --proc host:\n%s", b)
	}
}
