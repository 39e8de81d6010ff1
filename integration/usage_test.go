//go:build linux

package integration

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// runReport is the part of the report about the run itself.
type runReport struct {
	Command []string `json:"command"`
	Dir     string   `json:"dir"`
	UID     *int     `json:"uid"`
	GID     *int     `json:"gid"`
	Network *struct {
		Mode string `json:"mode"`
	} `json:"network"`
	Exit struct {
		Code      int  `json:"code"`
		TimedOut  bool `json:"timed_out"`
		Cancelled bool `json:"cancelled"`
	} `json:"exit"`
	Usage *struct {
		UserMS    float64 `json:"user_ms"`
		SystemMS  float64 `json:"system_ms"`
		MaxRSSKiB int64   `json:"max_rss_kib"`
		WallMS    float64 `json:"wall_ms"`
		Source    string  `json:"source"`
	} `json:"usage"`
	Error string `json:"error"`
}

func readRunReport(t *testing.T, path string) (runReport, string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rep runReport
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	return rep, string(b)
}

// The report says what ran, where, as whom, on which network, and what it
// used: a CPU burner's time and a memory hog's peak, counted over the whole
// sandbox, in both kinds of sandbox; a timeout still has its usage.
func TestReportRunAndUsage(t *testing.T) {
	ws := workspace(t)
	rep := filepath.Join(ws, "r.json")
	script := "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.2: pass\nb = bytearray(48 << 20)\nfor i in range(0, len(b), 4096): b[i] = 1\n"
	for _, iso := range []string{"full", "landlock"} {
		args := []string{"--isolation", iso, "--rw", ws, "--report", rep}
		if iso == "full" {
			args = append(args, "--uid", "0", "--gid", "0")
		}
		r := run(t, ws, append(args, "--", "/usr/bin/python3", "-c", script)...)
		got, text := readRunReport(t, rep)
		if r.code != 0 {
			t.Fatalf("%s: %v", iso, r)
		}
		uid, gid := os.Getuid(), os.Getgid()
		if iso == "full" {
			uid, gid = 0, 0
		}
		if len(got.Command) != 3 || got.Command[0] != "/usr/bin/python3" || got.Command[2] != script || got.Dir != ws ||
			got.UID == nil || *got.UID != uid || got.GID == nil || *got.GID != gid || got.Network == nil || got.Network.Mode != "none" {
			t.Errorf("%s: the run in the report:\n%s", iso, text)
		}
		if u := got.Usage; u == nil || u.Source != "rusage" || u.UserMS+u.SystemMS < 180 || u.MaxRSSKiB < 48<<10 || u.WallMS < 150 {
			t.Errorf("%s: usage of 0.2 s of CPU and 48 MiB:\n%s", iso, text)
		}
	}
	r := run(t, ws, "--net", "host", "--report", rep, "--timeout", "300ms", "--", "/usr/bin/python3", "-c", "while True: pass")
	got, text := readRunReport(t, rep)
	if r.code != 124 || !got.Exit.TimedOut || got.Exit.Cancelled || got.Network == nil || got.Network.Mode != "host" ||
		got.Usage == nil || got.Usage.UserMS < 50 {
		t.Errorf("a CPU burner ended by the timeout: %v\n%s", r, text)
	}
	// Not built: nothing about the run but the command.
	r = run(t, ws, "--report", rep, "--ro", "/no/such/path", "--", "/bin/true")
	got, text = readRunReport(t, rep)
	if r.code != 125 || len(got.Command) != 1 || got.Dir != "" || got.UID != nil || got.Network != nil || got.Usage != nil {
		t.Errorf("a sandbox not built: %v\n%s", r, text)
	}
}

// --timeout with --kill-after: SIGTERM at the timeout, so a payload can
// end cleanly; one that ignores it is killed, with everything it started,
// after the grace; 124 either way. Without --timeout it is refused.
func TestKillAfter(t *testing.T) {
	ws := workspace(t)
	start := time.Now()
	r := run(t, ws, "--timeout", "300ms", "--kill-after", "10s", "--", "/bin/sh", "-c", "trap 'echo term; exit 0' TERM; while :; do sleep 0.05; done")
	if took := time.Since(start); r.code != 124 || r.stdout != "term" || took > 5*time.Second || !strings.Contains(r.stderr, "timeout") {
		t.Errorf("a payload that ends on SIGTERM: %v after %v", r, took)
	}
	for _, iso := range []string{"full", "landlock"} {
		start = time.Now()
		r = run(t, ws, "--isolation", iso, "--rw", ws, "--timeout", "300ms", "--kill-after", "500ms", "--", "/bin/sh", "-c",
			"trap '' TERM; sleep 30 & echo $! > "+ws+"/child; while :; do sleep 0.05; done")
		if took := time.Since(start); r.code != 124 || took < 800*time.Millisecond || took > 10*time.Second {
			t.Errorf("%s: a payload that ignores SIGTERM: %v after %v", iso, r, took)
		}
		if iso == "landlock" { // the pid is this namespace's
			if pid := strings.TrimSpace(readFile(t, ws+"/child")); processAlive(pid) {
				t.Errorf("%s: the payload's child %s outlived the sandbox", iso, pid)
			}
		}
	}
	// The command's time starts when it does; a timeout shorter than
	// building the sandbox ends that, and nothing runs.
	// (On a machine so loaded that the watcher runs only once the payload
	// has started, the payload gets its 1 ms instead: 124 all the same.)
	r = run(t, ws, "--rw", ws, "--timeout", "1ms", "--report", ws+"/r.json", "--", "/bin/sh", "-c", "sleep 1; touch "+ws+"/ran")
	inSetup := strings.Contains(r.stderr, "the timeout (1ms) expired before the sandbox was built")
	if _, err := os.Stat(ws + "/ran"); r.code != 124 || err == nil || !inSetup && !strings.Contains(r.stderr, "sandbox ended by timeout") ||
		!strings.Contains(readFile(t, ws+"/r.json"), `"code": 124`) || !strings.Contains(readFile(t, ws+"/r.json"), `"timed_out": true`) {
		t.Errorf("a timeout shorter than the setup: %v\n%s", r, readFile(t, ws+"/r.json"))
	}
	r = run(t, ws, "--kill-after", "1s", "--", "/bin/true")
	if r.code != 125 || !strings.Contains(r.stderr, "--kill-after 1s needs --timeout") || strings.Count(r.stderr, "\n") != 0 {
		t.Errorf("--kill-after without --timeout: %v", r)
	}
}

// processAlive says whether pid names a process that has not exited, after
// giving a signal sent to it a moment to land.
func processAlive(pid string) bool {
	for i := 0; i < 100; i++ {
		b, err := os.ReadFile("/proc/" + pid + "/stat")
		if err != nil {
			return false
		}
		s := string(b)
		if f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:]); len(f) > 0 && f[0] == "Z" {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
	return true
}
