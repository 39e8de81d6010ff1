//go:build linux

package integration

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

type probeItem struct {
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
}

type probeResult struct {
	UserNamespaces probeItem         `json:"user_namespaces"`
	Procfs         probeItem         `json:"procfs"`
	Sysfs          probeItem         `json:"sysfs"`
	Landlock       probeItem         `json:"landlock"`
	Limits         probeItem         `json:"limits"`
	LimitsCgroup   map[string]string `json:"limits_cgroup"`
}

func probeHost(t *testing.T) probeResult {
	t.Helper()
	out, err := exec.Command(nsrunBin, "probe", "--json").Output()
	if _, exit := err.(*exec.ExitError); err != nil && !exit {
		t.Fatalf("nsrun probe: %v", err)
	}
	var p probeResult
	if err := json.Unmarshal(out, &p); err != nil {
		t.Fatalf("nsrun probe --json: %v\n%s", err, out)
	}
	return p
}

// What nsrun probe says is true: each thing it says works works, and each
// thing it says does not fails with exit 125 and one line naming the cause.
// It holds on the host and in each container shape the container suite
// runs (make test-container).
func TestProbeIsTrue(t *testing.T) {
	p := probeHost(t)
	ws := workspace(t)
	runIn := func(args ...string) result { return runAnywhere(t, ws, args...) }
	failsWith := func(what string, r result, why ...string) {
		t.Helper()
		if r.code != 125 || strings.Count(r.stderr, "\n") != 0 {
			t.Errorf("%s: probe says no, so want exit 125 and one line: %v", what, r)
		}
		for _, w := range why {
			if !strings.Contains(r.stderr, w) {
				t.Errorf("%s: the message lacks %q: %v", what, w, r)
			}
		}
	}
	// The mode that works here, for trying the limits.
	var mode []string
	r := runIn("--", "/bin/true")
	switch {
	case p.UserNamespaces.OK && p.Procfs.OK && p.Sysfs.OK:
		if r.code != 0 {
			t.Errorf("probe says namespaces, procfs and sysfs work, but a sandbox fails: %v", r)
		}
	case p.UserNamespaces.OK && p.Procfs.OK:
		failsWith("a fresh sysfs", r, "sysfs refused", "--sys host")
		mode = []string{"--sys", "host"}
		if r := runIn("--sys", "host", "--", "/bin/true"); r.code != 0 {
			t.Errorf("probe says namespaces and procfs work, but --sys host fails: %v", r)
		}
	case p.UserNamespaces.OK:
		failsWith("a fresh procfs", r, "procfs refused", "--proc host")
		// A runtime that masks /proc masks /sys too.
		mode = []string{"--proc", "host", "--sys", "host"}
		if r := runIn(append(mode, "--", "/bin/true")...); r.code != 0 {
			t.Errorf("probe says namespaces work, but --proc host --sys host fails: %v", r)
		}
	default:
		why := p.UserNamespaces.Detail
		if _, setting, ok := strings.Cut(why, "(forbidden by "); ok {
			why = setting
		}
		failsWith("user namespaces", r, "create namespaces", why, "--isolation landlock")
		mode = []string{"--isolation", "landlock"}
	}
	if p.Landlock.OK {
		if r := runIn("--isolation", "landlock", "--", "/bin/true"); r.code != 0 {
			t.Errorf("probe says Landlock works, but --isolation landlock fails: %v", r)
		}
	} else if !p.UserNamespaces.OK {
		t.Skip("neither namespaces nor Landlock here: nothing to try the limits with")
	}
	for _, lim := range []struct{ option, value string }{{"memory", "64M"}, {"pids", "64"}, {"cpu", "1"}} {
		rep := filepath.Join(ws, lim.option+".json")
		args := append(append([]string{"--" + lim.option, lim.value, "--report", rep}, mode...), "--", "/bin/true")
		r := runIn(args...)
		version, ok := p.LimitsCgroup[lim.option]
		if !ok {
			failsWith("--"+lim.option, r, "--"+lim.option)
			continue
		}
		if r.code != 0 {
			t.Errorf("probe says --%s works through cgroup %s, but: %v", lim.option, version, r)
			continue
		}
		if got := readFile(t, rep); !strings.Contains(got, `"cgroup": "`+version+`"`) {
			t.Errorf("--%s: probe says cgroup %s, the report: %s", lim.option, version, got)
		}
	}
}

// runAnywhere is run without the skip that hosts unable to build sandboxes
// get: the probe tests are about such hosts too.
func runAnywhere(t *testing.T, dir string, args ...string) result {
	t.Helper()
	cmd := exec.Command(nsrunBin, args...)
	cmd.Dir = dir
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("nsrun %v: %v", args, err)
	}
	return result{stdout: strings.TrimSpace(stdout.String()), stderr: strings.TrimSpace(stderr.String()), code: code}
}
