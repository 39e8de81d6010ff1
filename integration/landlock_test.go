//go:build linux

package integration

import (
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/nsrun/nsrun/landlock"
)

func hostABI(t *testing.T) int {
	abi, _, err := landlock.ABI()
	if err != nil {
		if os.Getenv("NSRUN_INTEGRATION") == "1" {
			t.Fatalf("no Landlock: %v", err)
		}
		t.Skip("no Landlock:", err)
	}
	return abi
}

type report struct {
	Enforcement string
	Namespaces  map[string]bool
	Filesystem  struct{ RW []string }
	Landlock    struct {
		Status       string
		ABI          int
		RequestedABI int `json:"requested_abi"`
		Dropped      []string
		Reason       string
	}
	Seccomp struct{ Status, Profile string }
}

func readReport(t *testing.T, path string) report {
	t.Helper()
	var r report
	if err := json.Unmarshal([]byte(readFile(t, path)), &r); err != nil {
		t.Fatal(err)
	}
	return r
}

func TestLandlockReportedFullHere(t *testing.T) {
	abi := hostABI(t)
	ws := workspace(t)
	rep := filepath.Join(ws, "r.json")
	r := run(t, ws, "--rw", ws, "--report", rep, "--", "/bin/true")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("a fully enforced run must print nothing: %v", r)
	}
	got := readReport(t, rep)
	if abi >= 6 && (got.Landlock.Status != "full" || got.Landlock.ABI != abi || got.Landlock.RequestedABI != 6) {
		t.Errorf("landlock: %+v", got.Landlock)
	}
	r = run(t, ws, "--landlock", "off", "--report", rep, "--", "/bin/true")
	if got := readReport(t, rep); r.code != 0 || got.Landlock.Status != "off" {
		t.Errorf("--landlock off: %v %+v", r, got.Landlock)
	}
}

func TestLandlockOnlyMode(t *testing.T) {
	hostABI(t)
	ws := workspace(t)
	// A name of its own: t.TempDir's base is the same in every run, and
	// runs at once (other checkouts' suites) would remove each other's.
	outside, err := os.MkdirTemp("/var/tmp", "nsrun-outside-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(outside)
	writeFile(t, filepath.Join(outside, "keep"), "host")
	prog := filepath.Join(outside, "prog")
	writeFile(t, prog, "#!/bin/sh\necho should-not-run\n")
	os.Chmod(prog, 0o755)
	writeFile(t, filepath.Join(ws, "a", "f"), "f")
	if err := os.Mkdir(filepath.Join(ws, "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(ws, ".git", "config"), "[core]")
	writeFile(t, filepath.Join(ws, "secret"), "s3cret")
	// The helper lives outside the system's directories: it may run from
	// a read-only rule.
	opts := []string{"--isolation", "landlock", "--ro", filepath.Dir(helperBin), "--rw", ws, "--ro", filepath.Join(ws, ".git"), "--deny", filepath.Join(ws, "secret")}
	for _, tc := range []struct {
		op   string
		args []string
		want string
	}{
		{"write", []string{filepath.Join(outside, "keep")}, "EACCES"},
		{"write", []string{filepath.Join(outside, "new")}, "EACCES"},
		{"write", []string{filepath.Join(ws, "a", "new")}, "ok"},
		{"rename", []string{filepath.Join(ws, "a", "f"), filepath.Join(ws, "b", "moved")}, "ok"},
		{"write", []string{filepath.Join(ws, "top")}, "ok"}, // ws is carved around .git: the supervisor makes its entries
		{"write", []string{filepath.Join(ws, ".git", "config")}, "EACCES"},
		{"read", []string{filepath.Join(ws, "secret")}, "EACCES"},
		{"read", []string{filepath.Join(outside, "keep")}, `"host"`},
		{"exec", []string{prog}, "EACCES"},
		// The host's devices cannot be opened (/dev/ptmx is in every
		// container's /dev too).
		{"read", []string{"/dev/ptmx"}, "EACCES"},
		{"write", []string{"/dev/null"}, "ok"},
		{"write", []string{"/proc/self/comm"}, "EACCES"},
	} {
		got := helper(t, opts, tc.op, tc.args...)
		expect(t, tc.op+" "+strings.Join(tc.args, " "), got, tc.want)
	}
	expect(t, "host file", readFile(t, filepath.Join(outside, "keep")), "host")
	if _, err := os.Stat(filepath.Join(ws, "b", "moved")); err != nil {
		t.Errorf("the rename across directories did not happen: %v", err)
	}
	// A private temporary directory, removed afterwards.
	rep := filepath.Join(ws, "r.json")
	r := run(t, ws, append(opts, "--report", rep, "--", "/bin/sh", "-c", `echo "$TMPDIR"; echo x > "$TMPDIR/f"`)...)
	if r.code != 0 || !strings.HasPrefix(r.stdout, os.TempDir()) {
		t.Fatalf("TMPDIR: %v", r)
	}
	if _, err := os.Stat(r.stdout); !os.IsNotExist(err) {
		t.Errorf("the private temporary directory %s is still there: %v", r.stdout, err)
	}
	got := readReport(t, rep)
	if got.Enforcement != "partial" || got.Namespaces["user"] || got.Namespaces["pid"] {
		t.Errorf("report: %+v", got)
	}
	// Settings that need namespaces are refused, not ignored.
	for _, bad := range [][]string{{"--root", ws}, {"--hostname", "x"}, {"--uid", "0"}, {"--tmpfs", ws}} {
		r := run(t, ws, append([]string{"--isolation", "landlock"}, append(bad, "--", "/bin/true")...)...)
		if r.code != 125 || !strings.Contains(r.stderr, bad[0]) || !strings.Contains(r.stderr, "--isolation") {
			t.Errorf("%v: %v", bad, r)
		}
	}
}

func listenLocal(t *testing.T) (net.Listener, int) {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go acceptAndClose(ln)
	return ln, ln.Addr().(*net.TCPAddr).Port
}

func TestAllowConnectRestrictsTCPAndMPTCP(t *testing.T) {
	if hostABI(t) < 4 {
		t.Skip("Landlock ABI < 4 has no TCP rules")
	}
	allowed, ap := listenLocal(t)
	defer allowed.Close()
	other, op := listenLocal(t)
	defer other.Close()
	for _, mode := range []string{"full", "landlock"} {
		opts := []string{"--isolation", mode, "--ro", filepath.Dir(helperBin), "--net", "host", "--allow-connect", strconv.Itoa(ap)}
		expect(t, mode+": connect to the allowed port", helper(t, opts, "connect", strconv.Itoa(ap)), "ok")
		expect(t, mode+": connect to another port", helper(t, opts, "connect", strconv.Itoa(op)), "EACCES")
		expect(t, mode+": MPTCP to another port", helper(t, opts, "connect", strconv.Itoa(op), "mptcp"), "EPROTONOSUPPORT")
		expect(t, mode+": bind is not restricted", helper(t, opts, "bind", "0"), "ok")
	}
	opts := []string{"--net", "host", "--allow-bind", "1-1023"}
	expect(t, "bind outside --allow-bind", helper(t, opts, "bind", strconv.Itoa(op+1)), "EACCES")
	// Without port rules, TCP is not restricted.
	expect(t, "no rules", helper(t, []string{"--net", "host"}, "connect", strconv.Itoa(op)), "ok")
}

func TestHostAbstractSocketsAndSignalsAreScoped(t *testing.T) {
	if hostABI(t) < 6 {
		t.Skip("Landlock ABI < 6 has no scopes")
	}
	name := "@nsrun-test-" + strconv.Itoa(os.Getpid())
	ln, err := net.Listen("unix", name)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	expect(t, "abstract socket with --net host", helper(t, []string{"--net", "host"}, "dial-unix", name), "EPERM")
	only := []string{"--isolation", "landlock", "--ro", filepath.Dir(helperBin)}
	expect(t, "abstract socket, Landlock only", helper(t, append(only, "--net", "host"), "dial-unix", name), "EPERM")
	expect(t, "signal a host process, Landlock only", helper(t, only, "kill", strconv.Itoa(os.Getpid()), "0"), "EPERM")
	expect(t, "abstract socket with --landlock off", helper(t, []string{"--net", "host", "--landlock", "off"}, "dial-unix", name), "ok")
}

// A TCP rule on the host network handles UDP too; below ABI 10 that part
// is dropped, which --strict refuses.
func TestStrictNamesWhatIsMissing(t *testing.T) {
	abi := hostABI(t)
	if abi >= 10 {
		t.Skip("this kernel enforces UDP rules")
	}
	ws := workspace(t)
	marker := filepath.Join(ws, "ran")
	r := run(t, ws, "--net", "host", "--allow-connect", "53", "--strict", "--rw", ws, "--", "/bin/touch", marker)
	if r.code != 125 || !strings.Contains(r.stderr, "--strict") || !strings.Contains(r.stderr, "connect_send_udp") {
		t.Errorf("want exit 125 naming connect_send_udp: %v", r)
	}
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Error("the command ran")
	}
	// Without --strict it runs, with a one-line warning and a partial report.
	rep := filepath.Join(ws, "r.json")
	r = run(t, ws, "--net", "host", "--allow-connect", "53", "--report", rep, "--", "/bin/true")
	if r.code != 0 || !strings.Contains(r.stderr, "warning: landlock") || strings.Count(r.stderr, "\n") != 0 {
		t.Errorf("want one warning line: %v", r)
	}
	if got := readReport(t, rep); got.Landlock.Status != "partial" || got.Landlock.RequestedABI != 10 {
		t.Errorf("report: %+v", got.Landlock)
	}
	r = run(t, ws, "-q", "--net", "host", "--allow-connect", "53", "--", "/bin/true")
	if r.code != 0 || r.stderr != "" {
		t.Errorf("-q must silence the warning: %v", r)
	}
}
