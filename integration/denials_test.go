//go:build linux

package integration

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun"
)

type denialsReport struct {
	Denials        *[]nsrun.Denial `json:"denials"`
	DenialsDropped int             `json:"denials_dropped"`
	Exit           struct {
		Code int `json:"code"`
	} `json:"exit"`
}

// traced runs nsrun --trace-denials with a report and returns both.
func traced(t *testing.T, dir string, args ...string) (result, denialsReport) {
	t.Helper()
	rep := filepath.Join(t.TempDir(), "report.json")
	r := run(t, dir, append([]string{"--trace-denials", "--report", rep}, args...)...)
	var d denialsReport
	if err := json.Unmarshal([]byte(readFile(t, rep)), &d); err != nil {
		t.Fatalf("report: %v", err)
	}
	if d.Denials == nil {
		t.Fatalf("report has no \"denials\" under --trace-denials: %v", r)
	}
	return r, d
}

// findDenial is the entry for op on what (a path or an address).
func findDenial(d denialsReport, op, what string) *nsrun.Denial {
	for i, x := range *d.Denials {
		if x.Operation == op && (x.Path == what || x.Address == what) {
			return &(*d.Denials)[i]
		}
	}
	return nil
}

func rawCall(nr uintptr, args ...string) []string {
	return append([]string{syscBin, "raw", itoa(int(nr))}, args...)
}

// refusedOutside says whether the host's own seccomp filter (a container's
// profile) refuses a raw call before any sandbox: outside nsrun it gets
// EPERM. Such a filter outranks the trace stop a traced sandbox refuses
// with, so under tracing the call gets the host filter's errno and nsrun
// never sees it.
func refusedOutside(t *testing.T, args ...string) bool {
	t.Helper()
	out, _ := exec.Command(syscBin, append([]string{"raw"}, args...)...).Output()
	return strings.TrimSpace(string(out)) == "EPERM"
}

// sandboxRefusal is a call the sandbox refuses and the host lets through:
// keyctl, or where the host's own filter refuses keyctl already, clone3.
type sandboxRefusal struct {
	nr, arg, op, errno, rule string
}

func refusalToTrace(t *testing.T) sandboxRefusal {
	t.Helper()
	if !refusedOutside(t, itoa(unix.SYS_KEYCTL), "0") {
		return sandboxRefusal{itoa(unix.SYS_KEYCTL), "0", "keyctl", "EPERM", "seccomp: keyctl"}
	}
	t.Logf("the host's own filter refuses keyctl: clone3 stands for a refused call")
	return sandboxRefusal{itoa(unix.SYS_CLONE3), "0", "clone3", "ENOSYS", "seccomp: clone3"}
}

// TestTraceDenialsLayers: a payload that hits one layer once gets one
// entry naming the operation, the path or address, the errno it saw and
// the rule, and one summary line; the payload sees what it would untraced.
func TestTraceDenialsLayers(t *testing.T) {
	ws := workspace(t)
	secret := filepath.Join(ws, "secret")
	writeFile(t, filepath.Join(secret, "key"), "k")
	syscDir := filepath.Dir(syscBin)
	// A program outside the system's directories (syscBin may be in /opt).
	alien := filepath.Join(ws, "bin", "sysc")
	writeFile(t, alien, readFile(t, syscBin))
	if err := os.Chmod(alien, 0o755); err != nil {
		t.Fatal(err)
	}
	full, ll := []string{}, []string{"--isolation", "landlock", "--ro", syscDir}
	cases := []struct {
		name, mode          string
		opts, argv          []string
		out                 string // the payload's answer
		op, what, errno     string
		rule, allow, stderr string
	}{
		{"ro root", "full", full, []string{helperBin, "write", "/usr/nsrun-denied"}, "EROFS",
			"open for write", "/usr/nsrun-denied", "EROFS", "read-only: host root", "--rw /usr", "denied 1x: open for write /usr/nsrun-denied: EROFS (read-only: host root); add --rw /usr"},
		{"deny", "full", []string{"--deny", secret}, []string{helperBin, "read", filepath.Join(secret, "key")}, "ENOENT",
			"open", filepath.Join(secret, "key"), "ENOENT", "--deny " + secret, "", "(--deny " + secret + ")"},
		{"keyctl", "full", full, rawCall(unix.SYS_KEYCTL, "0"), "EPERM",
			"keyctl", "", "EPERM", "seccomp: keyctl", "", "denied 1x: keyctl: EPERM (seccomp: keyctl)"},
		{"clone3", "full", full, rawCall(unix.SYS_CLONE3), "ENOSYS",
			"clone3", "", "ENOSYS", "seccomp: clone3", "", "denied 1x: clone3: ENOSYS (seccomp: clone3)"},
		{"socket family", "full", full, rawCall(unix.SYS_SOCKET, itoa(unix.AF_ALG), itoa(unix.SOCK_SEQPACKET)), "EAFNOSUPPORT",
			"socket", "AF_ALG SOCK_SEQPACKET", "EAFNOSUPPORT", "seccomp: socket AF_ALG", "", "denied 1x: socket AF_ALG SOCK_SEQPACKET: EAFNOSUPPORT"},
		{"network", "full", full, []string{helperBin, "connect-unroutable"}, "ENETUNREACH",
			"connect", "192.0.2.1:9", "ENETUNREACH", "network: not allowed (--net none)", "--net host", "add --net host"},
		{"keyctl landlock", "landlock", ll, rawCall(unix.SYS_KEYCTL, "0"), "EPERM",
			"keyctl", "", "EPERM", "seccomp: keyctl", "", "(seccomp: keyctl)"},
		{"socket landlock", "landlock", ll, rawCall(unix.SYS_SOCKET, itoa(unix.AF_ALG), itoa(unix.SOCK_SEQPACKET)), "EAFNOSUPPORT",
			"socket", "AF_ALG SOCK_SEQPACKET", "EAFNOSUPPORT", "seccomp: socket AF_ALG", "", "(seccomp: socket AF_ALG)"},
		{"inet under --net none, landlock", "landlock", ll, rawCall(unix.SYS_SOCKET, itoa(unix.AF_INET), itoa(unix.SOCK_STREAM)), "EAFNOSUPPORT",
			"socket", "AF_INET SOCK_STREAM", "EAFNOSUPPORT", "network: not allowed (--net none)", "--net host", "add --net host"},
		{"ro root landlock", "landlock", append([]string{"--ro", filepath.Dir(helperBin)}, ll...), []string{helperBin, "write", "/usr/nsrun-denied"}, "EACCES",
			"open for write", "/usr/nsrun-denied", "EACCES", "landlock: read-only: host root", "--rw /usr", "add --rw /usr"},
		{"deny landlock", "landlock", append([]string{"--deny", secret, "--ro", filepath.Dir(helperBin)}, ll...), []string{helperBin, "read", filepath.Join(secret, "key")}, "EACCES",
			"open", filepath.Join(secret, "key"), "EACCES", "--deny " + secret, "", "(--deny " + secret + ")"},
		// Answered by the Landlock-only supervisor, which the tracer
		// never sees: the supervisor keeps its refusals for the report.
		{"chmod landlock", "landlock", append([]string{"--ro", filepath.Dir(helperBin)}, ll...), []string{helperBin, "chmod", filepath.Join(secret, "key"), "600"}, "EPERM",
			"chmod", filepath.Join(secret, "key"), "EPERM", "landlock: read-only: host root", "--rw " + filepath.Join(secret, "key"), "add --rw " + filepath.Join(secret, "key")},
		{"exec landlock", "landlock", []string{"--isolation", "landlock"}, []string{"/bin/sh", "-c", "exec " + alien + " raw 39"}, "",
			"exec", alien, "EACCES", "landlock: executes only from", "--ro " + filepath.Dir(alien), "add --ro " + filepath.Dir(alien)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.argv[0] == syscBin && c.argv[1] == "raw" && refusedOutside(t, c.argv[2:]...) {
				// The host's filter answers first (EPERM): nsrun cannot see it.
				r, _ := traced(t, "/", append(append([]string{}, c.opts...), append([]string{"--"}, c.argv...)...)...)
				if r.stdout != "EPERM" {
					t.Errorf("refused by the host's own filter: got %q, want EPERM: %v", r.stdout, r)
				}
				t.Logf("the host's own seccomp filter refuses %v first: not listed, not checked", c.argv[2:])
				return
			}
			r, d := traced(t, "/", append(append([]string{}, c.opts...), append([]string{"--"}, c.argv...)...)...)
			if c.out != "" && r.stdout != c.out {
				t.Fatalf("payload: got %q, want %q: %v", r.stdout, c.out, r)
			}
			x := findDenial(d, c.op, c.what)
			if x == nil {
				t.Fatalf("no denial %s %s in %+v (%v)", c.op, c.what, *d.Denials, r)
			}
			if x.Errno != c.errno || !strings.HasPrefix(x.Rule, c.rule) || x.Allow != c.allow || x.Count != 1 {
				t.Errorf("denial: %+v, want errno %s, rule %s..., allow %q, count 1", *x, c.errno, c.rule, c.allow)
			}
			if x.Pid <= 0 || x.Argv0 == "" {
				t.Errorf("denial without its process: %+v", *x)
			}
			if !strings.Contains(r.stderr, "nsrun: ") || !strings.Contains(r.stderr, c.stderr) {
				t.Errorf("summary: want a line with %q in\n%s", c.stderr, r.stderr)
			}
		})
	}
}

// TestTraceDenialsNothing: a payload that hits nothing prints nothing more
// and has an empty list (failures that are not the sandbox's included).
func TestTraceDenialsNothing(t *testing.T) {
	for _, mode := range [][]string{{}, {"--isolation", "landlock"}} {
		r, d := traced(t, "/", append(mode, "--", "/bin/sh", "-c", "cat /nonexistent 2>/dev/null; echo done")...)
		if r.code != 0 || r.stdout != "done" || r.stderr != "" || len(*d.Denials) != 0 {
			t.Errorf("%v: %v, denials %+v", mode, r, *d.Denials)
		}
	}
}

// TestTraceDenialsSameOutcome: tracing changes neither the exit status
// nor what the payload prints or gets.
func TestTraceDenialsSameOutcome(t *testing.T) {
	script := syscBin + " raw " + itoa(unix.SYS_KEYCTL) + " 0; " + syscBin + " raw " + itoa(unix.SYS_CLONE3) +
		"; echo x > /usr/nsrun-denied; echo $?; (sleep 0.1 & wait); exit 3"
	for _, mode := range [][]string{{}, {"--isolation", "landlock", "--ro", filepath.Dir(syscBin)}} {
		argv := append(append([]string{}, mode...), "--", "/bin/sh", "-c", script)
		plain := run(t, "/", argv...)
		tr, d := traced(t, "/", argv...)
		if plain.code != 3 || tr.code != 3 || plain.stdout != tr.stdout {
			t.Errorf("%v: untraced %v\ntraced %v", mode, plain, tr)
		}
		if withoutSummary(tr.stderr) != plain.stderr {
			t.Errorf("%v: stderr untraced %q, traced %q", mode, plain.stderr, tr.stderr)
		}
		want := 3
		if refusedOutside(t, itoa(unix.SYS_KEYCTL), "0") {
			want-- // the host's own filter answers keyctl first: nsrun never sees it
		}
		if len(*d.Denials) != want {
			t.Errorf("%v: want %d denials, got %+v", mode, want, *d.Denials)
		}
	}
}

// TestTraceDenialsFlood: 100,000 distinct denials keep 1,000 entries and
// count the rest as dropped; nsrun's memory stays small.
func TestTraceDenialsFlood(t *testing.T) {
	need(t)
	rep := filepath.Join(t.TempDir(), "report.json")
	cmd := exec.Command(nsrunBin, "--trace-denials", "--report", rep, "--", helperBin, "flood", "100000", "/usr")
	out, err := cmd.Output()
	if err != nil || strings.TrimSpace(string(out)) != "ok" {
		t.Fatalf("flood: %v %s", err, out)
	}
	var d denialsReport
	if err := json.Unmarshal([]byte(readFile(t, rep)), &d); err != nil {
		t.Fatal(err)
	}
	if len(*d.Denials) != 1000 || d.DenialsDropped != 99000 {
		t.Errorf("want 1000 entries and 99000 dropped, got %d and %d", len(*d.Denials), d.DenialsDropped)
	}
	if rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss; rss > 100<<10 {
		t.Errorf("nsrun used %d KiB", rss)
	}
}

// TestTraceDenialsTracerOutOfReach: the payload cannot kill, stop or
// trace the tracer, nor trace itself; what it does after is still seen.
func TestTraceDenialsTracerOutOfReach(t *testing.T) {
	after := refusalToTrace(t)
	script := "kill -9 -1; kill -STOP $PPID; kill -9 $PPID; kill -9 1; " +
		syscBin + " raw " + itoa(unix.SYS_PTRACE) + " " + itoa(unix.PTRACE_ATTACH) + " $PPID; " +
		syscBin + " raw " + itoa(unix.SYS_PTRACE) + " " + itoa(unix.PTRACE_TRACEME) + "; " +
		syscBin + " raw " + after.nr + " " + after.arg
	for _, mode := range [][]string{{}, {"--isolation", "landlock", "--ro", filepath.Dir(syscBin)}} {
		r, d := traced(t, "/", append(append([]string{}, mode...), "--", "/bin/sh", "-c", script)...)
		if r.stdout != "EPERM\nEPERM\n"+after.errno {
			t.Errorf("%v: ptrace and %s: %v", mode, after.op, r)
		}
		if findDenial(d, after.op, "") == nil {
			t.Errorf("%v: the tracer missed what came after: %+v", mode, *d.Denials)
		}
	}
}

// TestTraceDenialsPolicyFile: "trace_denials" in a policy file is the flag.
func TestTraceDenialsPolicyFile(t *testing.T) {
	dir := t.TempDir()
	pol, rep := filepath.Join(dir, "policy.json"), filepath.Join(dir, "report.json")
	writeFile(t, pol, `{"version": 1, "trace_denials": true}`)
	r := run(t, "/", "--policy", pol, "--report", rep, "--", helperBin, "write", "/usr/nsrun-denied")
	if r.stdout != "EROFS" || !strings.Contains(r.stderr, "nsrun: denied 1x: open for write /usr/nsrun-denied: EROFS (read-only: host root); add --rw /usr") {
		t.Errorf("%v", r)
	}
	var d denialsReport
	if err := json.Unmarshal([]byte(readFile(t, rep)), &d); err != nil || d.Denials == nil || findDenial(d, "open for write", "/usr/nsrun-denied") == nil {
		t.Errorf("report: %v %+v", err, d)
	}
	// Without it, nothing is traced and the report has no "denials".
	r = run(t, "/", "--report", rep, "--", helperBin, "write", "/usr/nsrun-denied")
	if strings.Contains(readFile(t, rep), `"denials"`) || strings.Contains(r.stderr, "denied") {
		t.Errorf("untraced: %v\n%s", r, readFile(t, rep))
	}
}

// withoutSummary is nsrun's stderr without its denial summary.
func withoutSummary(stderr string) string {
	var out []string
	for _, l := range strings.Split(stderr, "\n") {
		if !strings.HasPrefix(l, "nsrun: denied") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// sameTraced runs argv untraced and traced and fails unless both end
// alike and print alike (the summary aside); it returns the traced
// run's denials.
func sameTraced(t *testing.T, argv []string) (result, denialsReport) {
	t.Helper()
	plain := run(t, "/", argv...)
	tr, d := traced(t, "/", argv...)
	if plain.code != tr.code || plain.stdout != tr.stdout || withoutSummary(tr.stderr) != plain.stderr {
		t.Errorf("%v:\nuntraced %v\ntraced %v", argv, plain, tr)
	}
	return plain, d
}

// TestTraceDenialsKeepsSignals: the payload's SIGSYS is its own, traced or
// not. A refused call leaves its handler, its mask and an ignored SIGSYS
// as they were (untraced it gets an errno, no signal); a SIGSYS it sends
// itself, even one dressed as a seccomp trap of read(), reaches it as it
// was and is listed as no denial. Only the refused call is listed.
func TestTraceDenialsKeepsSignals(t *testing.T) {
	ref := refusalToTrace(t)
	for _, mode := range [][]string{{}, {"--isolation", "landlock", "--ro", filepath.Dir(syscBin)}} {
		for _, how := range []string{"default", "handler", "resethand", "blocked", "ignored"} {
			for _, what := range [][]string{{"call", ref.nr, ref.arg}, {"raise"}, {"forge", "0"}, {"raise,call", ref.nr, ref.arg}, {"call,raise", ref.nr, ref.arg}} {
				argv := append(append(append([]string{}, mode...), "--", syscBin, "sig", how), what...)
				plain, d := sameTraced(t, argv)
				calls := 0
				for _, x := range *d.Denials {
					if x.Operation != ref.op || x.Errno != ref.errno || x.Rule != ref.rule {
						t.Errorf("%v: denial %+v, want only %s's", argv, x, ref.op)
					}
					calls += x.Count
				}
				// The refused call was made unless its SIGSYS killed the
				// payload before it.
				want := 0
				if strings.Contains(what[0], "call") && (strings.HasPrefix(what[0], "call") || plain.code == 0) {
					want = 1
				}
				if calls != want {
					t.Errorf("%v: %d denials listed, want %d (%+v)", argv, calls, want, *d.Denials)
				}
			}
		}
	}
}

// TestTraceDenialsPayloadFilters: filters the payload loads itself answer
// as untraced, and cannot make the tracer let a refused call run or list
// a call the sandbox did not refuse.
func TestTraceDenialsPayloadFilters(t *testing.T) {
	const (
		traceObserve = 0x7ff00000 | 0x4e53 // SECCOMP_RET_TRACE with the observing value
		traceEPERM   = 0x7ff08001          // SECCOMP_RET_TRACE with the value traps once carried
		errnoEACCES  = 0x00050000 | 13
	)
	hex := func(v int) string { return "0x" + strconv.FormatInt(int64(v), 16) }
	ref, getpid := refusalToTrace(t), itoa(unix.SYS_GETPID)
	for _, mode := range [][]string{{}, {"--isolation", "landlock", "--ro", filepath.Dir(syscBin)}} {
		for _, c := range []struct {
			args   []string
			out    string
			denial string // the one call listed, or none
		}{
			// A refused call stays refused, whatever the payload's trace says.
			{[]string{"filtered", hex(traceObserve), ref.nr, ref.arg}, ref.errno, ref.op},
			{[]string{"filtered", hex(traceEPERM), ref.nr, ref.arg}, ref.errno, ref.op},
			// A trace no tracer answers fails the call with ENOSYS, as
			// untraced; the sandbox refused nothing.
			{[]string{"filtered", hex(traceEPERM), getpid}, "ENOSYS", ""},
			{[]string{"filtered", hex(traceObserve), getpid}, "ENOSYS", ""},
			// The payload's own errno, the newest filter's, stands.
			{[]string{"filtered", hex(errnoEACCES), ref.nr, ref.arg}, "EACCES", ""},
		} {
			argv := append(append(append([]string{}, mode...), "--", syscBin), c.args...)
			r, d := sameTraced(t, argv)
			if r.stdout != c.out {
				t.Errorf("%v: %v, want %s", argv, r, c.out)
			}
			var ops []string
			for _, x := range *d.Denials {
				ops = append(ops, x.Operation)
			}
			if strings.Join(ops, " ") != c.denial {
				t.Errorf("%v: denials %+v, want %q", argv, *d.Denials, c.denial)
			}
		}
		// A listener of the payload's own could let a refused call go on
		// (SECCOMP_USER_NOTIF_FLAG_CONTINUE) where its notification
		// outranks the tracer's stop: the sandbox holds the one listener a
		// task tree may have.
		for _, nr := range []int{unix.SYS_KEYCTL, unix.SYS_MOUNT} {
			argv := append(append([]string{}, mode...), "--", syscBin, "continue", itoa(nr), "0", "0", "0", "0", "0")
			if r, _ := traced(t, "/", argv...); r.stdout != "load: EBUSY" {
				t.Errorf("%v: %v, want the listener refused", argv, r)
			}
		}
	}
}

// TestTraceDenialsSupervisorBehindRefusals: in the Landlock-only mode a
// call the guard refuses is refused traced too, though the supervisor is
// handed such calls when they are allowed (chmod): no set-uid file.
func TestTraceDenialsSupervisorBehindRefusals(t *testing.T) {
	ws := workspace(t)
	f := filepath.Join(ws, "f")
	writeFile(t, f, "x")
	argv := []string{"--isolation", "landlock", "--ro", filepath.Dir(helperBin), "--rw", ws, "--", helperBin, "chmod", f, "4755"}
	r, d := sameTraced(t, argv)
	if r.stdout != "EPERM" || findDenial(d, "chmod", f) == nil {
		t.Errorf("%v: %v, denials %+v", argv, r, *d.Denials)
	}
	if st, err := os.Stat(f); err != nil || st.Mode()&os.ModeSetuid != 0 {
		t.Errorf("%s: %v %v", f, st.Mode(), err)
	}
}
