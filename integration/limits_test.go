//go:build linux

package integration

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestRlimits(t *testing.T) {
	ws := workspace(t)
	rep := filepath.Join(ws, "r.json")
	r := run(t, ws, "--rlimit", "nofile=100:200", "--rlimit", "fsize=4096", "--report", rep, "--", "/bin/sh", "-c",
		"ulimit -Sn; ulimit -Hn; ulimit -c; head -c 10000 /dev/zero > /tmp/f; echo rc=$?")
	if !strings.HasPrefix(r.stdout, "100\n200\n0\n") || !strings.Contains(r.stdout, "rc=153") {
		t.Errorf("rlimits inside: %v", r)
	}
	if got := readFile(t, rep); !strings.Contains(got, `"nofile": "100:200"`) || !strings.Contains(got, `"core": "0:0"`) {
		t.Errorf("report limits: %s", got)
	}
	r = run(t, ws, "--rlimit", "nofile=10:unlimited", "--", "/bin/true")
	if r.code != 125 || !strings.Contains(r.stderr, "hard limit") {
		t.Errorf("raising a hard limit: %v", r)
	}
	r = run(t, ws, "--rlimit", "bogus=1", "--", "/bin/true")
	if r.code != 125 || !strings.Contains(r.stderr, "--rlimit") {
		t.Errorf("bad rlimit: %v", r)
	}
}

// A full /tmp, /dev/shm or --tmpfs is ENOSPC inside and nothing outside.
func TestTmpfsSize(t *testing.T) {
	ws := workspace(t)
	r := run(t, ws, "--tmpfs-size", "1M", "--tmpfs", ws, "--", "/bin/sh", "-c",
		"head -c 2000000 /dev/zero > /tmp/big 2>/dev/null; echo tmp=$?; head -c 2000000 /dev/zero > "+ws+"/big 2>/dev/null; echo ws=$?; "+
			"head -c 2000000 /dev/zero > /dev/shm/big 2>/dev/null; echo shm=$?; "+
			"rm /tmp/big; head -c 500000 /dev/zero > /tmp/small && echo small-ok")
	if r.stdout != "tmp=1\nws=1\nshm=1\nsmall-ok" {
		t.Errorf("tmpfs size: %v", r)
	}
	if _, err := os.Stat(filepath.Join(ws, "big")); !os.IsNotExist(err) {
		t.Errorf("a write to the tmpfs reached the host: %v", err)
	}
}

// cgroup limits hold where the host has the controllers, and are refused
// with the reason where it has not (never a run without them).
func TestCgroupLimits(t *testing.T) {
	ws := workspace(t)
	rep := filepath.Join(ws, "r.json")
	// refused says whether nsrun refused the limits, as it must where it
	// cannot make the cgroup (an unprivileged caller without delegation),
	// naming one of the options. Root can always make one, so with
	// NSRUN_INTEGRATION=1 a refusal to root is a failure, not a pass.
	// (Not in a container, whose cgroup hierarchy is read-only.)
	mustEnforce := os.Getuid() == 0 && os.Getenv("NSRUN_INTEGRATION") == "1" && os.Getenv("NSRUN_SHAPE") == ""
	refused := func(r result, options ...string) bool {
		if r.code != 125 {
			return false
		}
		if mustEnforce {
			t.Errorf("limits refused to root: %v", r)
		}
		named := false
		for _, o := range options {
			named = named || strings.Contains(r.stderr, o)
		}
		if !named {
			t.Errorf("the refusal must name one of %v: %v", options, r)
		}
		t.Logf("%v refused here: %s", options, r.stderr)
		return true
	}
	r := run(t, ws, "--memory", "64M", "--report", rep, "--", "/usr/bin/python3", "-c", "b = bytearray(300 << 20); print('survived')")
	if !refused(r, "--memory") {
		if r.code != 137 || !strings.Contains(readFile(t, rep), `"oom_killed": true`) {
			t.Errorf("a memory hog under --memory 64M: %v\n%s", r, readFile(t, rep))
		}
		// Said in one line on stderr, and not with -q.
		if r.stderr != "nsrun: memory limit 64M reached: the kernel killed 1 process of the sandbox (OOM)" {
			t.Errorf("the OOM kill on stderr: %q", r.stderr)
		}
		r = run(t, ws, "-q", "--memory", "64M", "--", "/usr/bin/python3", "-c", "b = bytearray(300 << 20)")
		if r.code != 137 || r.stderr != "" {
			t.Errorf("the OOM kill with -q: %v", r)
		}
	}
	r = run(t, ws, "--memory", "512M", "--", "/usr/bin/python3", "-c", "b = bytearray(64 << 20); print('fits')")
	if !refused(r, "--memory") && r.stdout != "fits" {
		t.Errorf("64M under --memory 512M: %v", r)
	}
	r = run(t, ws, "--pids", "32", "--timeout", "20s", "--report", rep, "--", "/bin/bash", "-c",
		"for i in $(seq 200); do sleep 5 & done 2>/dev/null; wait; echo done")
	if !refused(r, "--pids") && (r.code == 124 || !strings.Contains(readFile(t, rep), `"pids_max": true`) ||
		!strings.HasPrefix(r.stderr, "nsrun: pids limit 32 reached: ") || !strings.HasSuffix(r.stderr, "forks were refused") || strings.Count(r.stderr, "\n") != 0) {
		t.Errorf("200 forks under --pids 32: %v\n%s", r, readFile(t, rep))
	}
	// 10,000 forks under --pids 64: the rest fail with EAGAIN, the program
	// goes on and exits, and the init ends the children left sleeping.
	// --memory bounds the damage if the pids limit were not applied.
	r = run(t, ws, "--pids", "64", "--memory", "512M", "--timeout", "50s", "--report", rep, "--", "/usr/bin/python3", "-c",
		"import os\nok = fail = 0\nfor i in range(10000):\n  try:\n    if os.fork() == 0:\n      os.execv('/bin/sleep', ['sleep', '60'])\n    ok += 1\n  except OSError:\n    fail += 1\nprint(ok, fail)")
	if !refused(r, "--pids", "--memory") {
		var ok, failed int
		if _, err := fmt.Sscan(r.stdout, &ok, &failed); err != nil || r.code != 0 || ok >= 64 || ok+failed != 10000 ||
			!strings.Contains(readFile(t, rep), `"pids_max": true`) {
			t.Errorf("10,000 forks under --pids 64: %v\n%s", r, readFile(t, rep))
		}
	}
	// Two seconds of spinning under a fifth of a CPU get about 0.4 s of
	// CPU time; a busy machine can only lower that, so the bound of one
	// second does not fail by noise.
	r = run(t, ws, "--cpu", "0.2", "--", "/usr/bin/python3", "-c",
		"import time\nt = time.time()\nwhile time.time() - t < 2: pass\nprint(round(time.process_time(), 2))")
	if !refused(r, "--cpu") {
		if cpu, err := strconv.ParseFloat(r.stdout, 64); r.code != 0 || err != nil || cpu > 1.0 {
			t.Errorf("2 s of spinning under --cpu 0.2 used %q s of CPU: %v", r.stdout, r)
		}
	}
	r = run(t, ws, "--cpu", "0", "--", "/bin/true")
	if r.code != 125 || !strings.Contains(r.stderr, "--cpu") {
		t.Errorf("--cpu 0: %v", r)
	}
}

// An out-of-range number is refused before anything runs (125), naming
// the option, the value and the bound.
func TestOutOfRangeValuesAreRefused(t *testing.T) {
	ws := workspace(t)
	for _, c := range []struct{ args, want string }{
		{"--tmpfs-size 9223372036854775809", `--tmpfs-size "9223372036854775809": is above 9223372036854775807 bytes`},
		{"--tmpfs-size 18446744073709551616", `--tmpfs-size "18446744073709551616": is above 9223372036854775807 bytes`},
		{"--memory 18446744073709551615", `--memory "18446744073709551615": is above 9223372036854775807 bytes`},
		{"--cpu NaN", `--cpu "NaN": want a number of CPUs from 0.01 to 4096`},
	} {
		r := run(t, ws, append(strings.Fields(c.args), "--", "/bin/sh", "-c", "echo ran")...)
		if r.code != 125 || strings.Contains(r.stdout, "ran") || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%s: %v, want 125 and %q", c.args, r, c.want)
		}
	}
}
