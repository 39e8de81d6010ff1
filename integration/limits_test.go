//go:build linux

package integration

import (
	"os"
	"path/filepath"
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

// A full /tmp is ENOSPC inside and nothing outside.
func TestTmpfsSize(t *testing.T) {
	ws := workspace(t)
	r := run(t, ws, "--tmpfs-size", "1M", "--tmpfs", ws, "--", "/bin/sh", "-c",
		"head -c 2000000 /dev/zero > /tmp/big 2>/dev/null; echo tmp=$?; head -c 2000000 /dev/zero > "+ws+"/big 2>/dev/null; echo ws=$?; "+
			"rm /tmp/big; head -c 500000 /dev/zero > /tmp/small && echo small-ok")
	if r.stdout != "tmp=1\nws=1\nsmall-ok" {
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
	r := run(t, ws, "--memory", "64M", "--report", rep, "--", "/bin/sh", "-c", "head -c 300000000 /dev/zero | tail -c 1 >/dev/null; echo survived")
	if r.code == 125 {
		if !strings.Contains(r.stderr, "--memory") || !strings.Contains(r.stderr, "controller") {
			t.Errorf("the refusal must name the option and the missing controller: %v", r)
		}
		t.Log("memory limit refused here:", r.stderr)
	} else if r.code != 137 || !strings.Contains(readFile(t, rep), `"oom_killed": true`) {
		t.Errorf("a memory hog under --memory 64M: %v\n%s", r, readFile(t, rep))
	}
	r = run(t, ws, "--pids", "64", "--timeout", "20s", "--report", rep, "--", "/bin/bash", "-c",
		"for i in $(seq 200); do sleep 5 & done 2>/dev/null; wait; echo done")
	if r.code == 125 {
		if !strings.Contains(r.stderr, "--pids") || !strings.Contains(r.stderr, "controller") {
			t.Errorf("the refusal must name the option and the missing controller: %v", r)
		}
	} else if !strings.Contains(readFile(t, rep), `"pids_max": true`) {
		t.Errorf("200 forks under --pids 64: %v\n%s", r, readFile(t, rep))
	}
	r = run(t, ws, "--cpu", "0", "--", "/bin/true")
	if r.code != 125 || !strings.Contains(r.stderr, "--cpu") {
		t.Errorf("--cpu 0: %v", r)
	}
}
