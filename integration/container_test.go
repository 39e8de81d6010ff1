//go:build linux

package integration

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// The container shapes make test-container runs Dockerfile.test's image in
// (NSRUN_SHAPE names one, scripts/test-container.sh the podman options):
//
//	default   podman's defaults: masked /proc, podman's seccomp profile
//	docker    Docker's default seccomp profile: user namespaces refused
//	unmasked  unmask=ALL and the profile docs/kubernetes.md gives
//
// Each gives what the shape must: full isolation works or fails with exit
// 125 naming the cause and the setting; --proc host where only the procfs
// is refused; the Landlock mode everywhere (TestLandlockOnlyMode runs in
// every shape beside this test).
func TestContainerShape(t *testing.T) {
	shape := os.Getenv("NSRUN_SHAPE")
	if shape == "" {
		t.Skip("not in a container shape (make test-container)")
	}
	p := probeHost(t)
	ws := workspace(t)
	full := runAnywhere(t, ws, "--", "/bin/true")
	landlock := runAnywhere(t, ws, "--isolation", "landlock", "--rw", ws, "--", "/bin/sh", "-c", "echo x > "+ws+"/f && ! echo y > /etc/nsrun-test")
	if landlock.code != 0 || readFile(t, filepath.Join(ws, "f")) != "x\n" {
		t.Errorf("%s: --isolation landlock: %v", shape, landlock)
	}
	switch shape {
	case "default":
		if !p.UserNamespaces.OK || p.Procfs.OK || !strings.Contains(p.Procfs.Detail, "masked") || p.Sysfs.OK {
			t.Errorf("podman's defaults: want user namespaces and a refused procfs: %+v", p)
		}
		if full.code != 125 || !strings.Contains(full.stderr, "masked") || !strings.Contains(full.stderr, "--proc host") {
			t.Errorf("full isolation under a masked /proc: %v", full)
		}
		// Podman masks /proc/timer_list (root's, readable by the sandbox's
		// root were the mask lost) with /dev/null.
		script := filepath.Join(ws, "probe.sh")
		writeFile(t, script, hostProcProbe+"echo \"timer_list: $(cat /proc/timer_list 2>/dev/null | wc -c)\"\n")
		victim := exec.Command("sleep", "60")
		if err := victim.Start(); err != nil {
			t.Fatal(err)
		}
		defer victim.Process.Kill()
		r := runAnywhere(t, ws, "-q", "--proc", "host", "--sys", "host", "--ro", ws, "--env", "VICTIM="+itoa(victim.Process.Pid), "--", "/bin/sh", script)
		if r.code != 0 || !strings.Contains(r.stdout, "timer_list: 0") || strings.Contains(r.stdout, ": allowed") || strings.Count(r.stdout, ": refused") != 10 {
			t.Errorf("--proc host under a masked /proc: %v", r)
		}
		if err := victim.Process.Signal(syscall.Signal(0)); err != nil {
			t.Errorf("the process outside did not survive the sandbox: %v", err)
		}
	case "docker":
		if p.UserNamespaces.OK || !strings.Contains(p.UserNamespaces.Detail, "seccomp filter") {
			t.Errorf("Docker's profile: want user namespaces refused by the seccomp filter: %+v", p)
		}
		if full.code != 125 || !strings.Contains(full.stderr, "seccomp filter") || !strings.Contains(full.stderr, "--isolation landlock") {
			t.Errorf("full isolation under Docker's profile: %v", full)
		}
	case "unmasked":
		if !p.UserNamespaces.OK || !p.Procfs.OK || !p.Sysfs.OK || full.code != 0 {
			t.Errorf("unmasked /proc, user namespaces allowed: want full isolation: %+v %v", p, full)
		}
	default:
		t.Fatalf("unknown NSRUN_SHAPE %q", shape)
	}
}

// In podman's default shape the container itself runs under podman's
// profile, applied by runc through libseccomp: each call must get the same
// answer directly as under nsrun's reading of the same profile, stacked on
// it (a call nsrun refused where runc allows would differ).
func TestPodmanProfileAgreesWithTheRuntime(t *testing.T) {
	if os.Getenv("NSRUN_SHAPE") != "default" || runtime.GOARCH != "amd64" {
		t.Skip("needs podman's default shape (make test-container) on amd64")
	}
	ws := workspace(t)
	profile := filepath.Join(ws, "containers-seccomp.json")
	writeFile(t, profile, podmanProfile)
	for _, args := range [][]string{
		raw(unix.SYS_SETNS, 0xffffffff, 0),
		raw(unix.SYS_SOCKET, unix.AF_NETLINK, unix.SOCK_RAW, unix.NETLINK_AUDIT),
		raw(unix.SYS_SOCKET, unix.AF_NETLINK, unix.SOCK_RAW, unix.NETLINK_ROUTE),
		raw(unix.SYS_IO_URING_SETUP, 8, 0),
		raw(unix.SYS_PERSONALITY, 0xffffffff),
		raw(unix.SYS_PERSONALITY, 0x0040000),
		raw(unix.SYS_BPF, 0),
		raw(1000),
	} {
		out, _ := exec.Command(syscBin, args...).Output()
		direct := strings.TrimSpace(string(out))
		r := runAnywhere(t, ws, append([]string{"-q", "--isolation", "landlock", "--seccomp", profile, "--", syscBin}, args...)...)
		if r.code != 0 || r.stdout != direct {
			t.Errorf("%v: %q under runc, %q (exit %d) under nsrun", args, direct, r.stdout, r.code)
		}
	}
}

// Root in a container under Docker's default seccomp profile: clone3 is
// answered with ENOSYS, so the sandbox's first process cannot be started
// in its cgroup (CLONE_INTO_CGROUP); nsrun starts it outside and moves it
// in before it runs anything of the sandbox's. Each sandbox runs as it
// does without the filter, in the same cgroups. The helper loads the
// filter, then executes nsrun.
func TestSandboxesWhereClone3IsRefused(t *testing.T) {
	hostABI(t)
	need(t)
	ws := workspace(t)
	show := "echo x > " + ws + "/f && sed 's/nsrun-[0-9]*-[0-9]*/nsrun-N/' /proc/self/cgroup"
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"landlock", []string{"--isolation", "landlock", "--rw", ws}},
		{"landlock with --pids", []string{"--isolation", "landlock", "--rw", ws, "--pids", "64"}},
		{"full with --pids", []string{"--rw", ws, "--pids", "64"}},
	} {
		args := append(append([]string{"-q"}, tc.args...), "--", "/bin/sh", "-c", show)
		plain := runProgram(t, nsrunBin, args...)
		refused := runProgram(t, helperBin, append([]string{"no-clone3", nsrunBin}, args...)...)
		if tc.name == "landlock" && plain.code != 0 {
			t.Fatalf("%s without the filter: %v", tc.name, plain)
		}
		if refused.code != plain.code || refused.stdout != plain.stdout {
			t.Errorf("%s: clone3 refused: %v\nwithout the filter: %v", tc.name, refused, plain)
		}
		t.Logf("%s: exit %d, %s", tc.name, plain.code, strings.ReplaceAll(plain.stdout, "\n", " "))
	}
}

// runProgram runs prog (nsrun, or a program that executes it) with args
// and waits at most a minute.
func runProgram(t *testing.T, prog string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, prog, args...)
	cmd.Dir = "/"
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run %s %v: %v", prog, args, err)
	}
	return result{stdout: strings.TrimSpace(stdout.String()), stderr: strings.TrimSpace(stderr.String()), code: code}
}
