//go:build linux

package integration

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The runtime-free init (internal/rawinit, the default) against the Go
// init (NSRUN_INIT=go), the reference: the same plans, run by both, must build the same
// sandbox. Each case prints what it built from inside (the mounts, the
// capabilities, NO_NEW_PRIVS and the filters, the limits, the hostname,
// the processes, Landlock's answers to allowed and denied writes, a
// filtered system call) and ends in an exit status; the two runs must
// agree on all of it, and -v must show that the raw init ran (a spec it
// does not support would silently get the Go init).
func TestRawInitAgrees(t *testing.T) {
	need(t)
	ws := workspace(t)
	base := noShims(workspace(t))
	writeFile(t, filepath.Join(ws, "noexec.sh"), "#!/bin/sh\n")
	for _, name := range []string{"secret", "src", "copy"} {
		writeFile(t, filepath.Join(ws, name), name+" on the host\n")
	}
	// Denied files and files of the sandbox's own (a copy, and the
	// /etc/passwd that names --uid's user): what they hold and every way
	// to change or replace them, which the mounts alone refuse.
	files := `cd ` + ws + `; for f in secret copy /etc/passwd; do
echo "== $f"; stat -c '%a %s %F %u %g' $f; grep -c . $f; grep -E 'src|rawinit' $f
(echo x >> $f) 2>&1; echo "append: $?"
(: > $f) 2>&1; echo "O_WRONLY|O_TRUNC: $?"
truncate -s 0 $f 2>&1; echo "truncate: $?"
chmod 666 $f 2>&1; echo "chmod: $?"
touch $f 2>&1; echo "touch: $?"
echo y > other; mv -f other $f 2>&1; echo "rename over: $?"
rm -f $f 2>&1; echo "unlink: $?"
mount --bind other $f 2>&1; echo "bind over: $?"
umount $f 2>&1; echo "umount: $?"
stat -c '%a %s' $f
done; rm -f other
awk '$5 ~ /secret|copy|passwd/ { $1 = $2 = $3 = ""; print }' /proc/self/mountinfo`
	probe := strings.Join([]string{
		`grep -E '^(Cap|NoNewPrivs|Seccomp)' /proc/self/status`,
		// Mount IDs and device numbers differ from run to run.
		`awk '{ $1 = $2 = $3 = ""; print }' /proc/self/mountinfo`,
		`cat /proc/self/limits`,
		`hostname; pwd; id; umask`,
		`ls -1 /dev; stat -c '%n %F %a' /dev/* /dev/pts/ptmx`,
		`tr -d '\0' < /proc/1/cmdline; echo`,
		`ps -eo args`, // pids differ: the Go init's threads take some
		`touch /etc/rawinit-probe; echo touch /etc: $?`,
		`touch /usr/rawinit-probe; echo touch /usr: $?`,
		`echo hi > ` + ws + `/written && cat ` + ws + `/written`,
		`echo hi > /tmp/t && cat /tmp/t`,
		`unshare -r true; echo unshare: $?`,
		`ip -o link 2>/dev/null | awk '{print $2, $3}'`,
		`cat /proc/sys/kernel/hostname`,
	}, "; ")
	cases := []struct {
		name string
		args []string
	}{
		{"probe", []string{"--rw", ws, "--", "/bin/sh", "-c", probe}},
		{"hostname and limits", []string{"--rw", ws, "--hostname", "box", "--rlimit", "nofile=64", "--", "/bin/sh", "-c", "hostname; ulimit -n; ulimit -c"}},
		{"exit status", []string{"--rw", ws, "--", "/bin/sh", "-c", "exit 3"}},
		{"killed by a signal", []string{"--rw", ws, "--", "/bin/sh", "-c", "kill -TERM $$"}},
		{"found in PATH", []string{"--rw", ws, "--", "true"}},
		{"not found", []string{"--rw", ws, "--", "rawinit-no-such-command"}},
		{"not found by path", []string{"--rw", ws, "--", "/nonexistent/x"}},
		{"not executable", []string{"--rw", ws, "--", ws + "/noexec.sh"}},
		{"a directory", []string{"--rw", ws, "--", "/usr"}},
		{"orphans are ended", []string{"--rw", ws, "--", "/bin/sh", "-c", "sleep 60 & echo started"}},
		{"read-only workspace", []string{"--ro", ws, "--", "/bin/sh", "-c", "touch " + ws + "/x; echo $?"}},
		{"files and denied files", []string{"--rw", ws, "--deny", ws + "/secret", "--file", ws + "/src", ws + "/copy", "--uid", "1234",
			"--", "/bin/sh", "-c", files}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			goRun := runBase(t, ws, base, []string{"NSRUN_INIT=go"}, c.args...)
			rawRun := runBase(t, ws, base, []string{"NSRUN_INIT=raw"}, append([]string{"-v"}, c.args...)...)
			if !strings.Contains(rawRun.stderr, "the raw init started") {
				t.Fatalf("the raw init did not run:\n%s", rawRun.stderr)
			}
			rawRun.stderr = withoutLog(rawRun.stderr)
			// The Go init says why lookPath failed in its own words.
			if goRun.code == 127 || goRun.code == 126 {
				if goRun.code != rawRun.code || rawRun.stdout != goRun.stdout {
					t.Errorf("go init: %v\nraw init: %v", goRun, rawRun)
				}
				return
			}
			if goRun.String() != rawRun.String() {
				t.Errorf("go init:\n%v\n\nraw init:\n%v\n\n%s", goRun, rawRun, firstDiff(goRun.String(), rawRun.String()))
			}
			if runtime.GOARCH != "amd64" || os.Getuid() != 0 {
				return // only root's nsrun shares its memory
			}
			// Sharing nsrun's memory builds the same sandbox; pid 1's
			// command line is then nsrun's own (Cmd.ShareMemory).
			args := append([]string{"-v"}, c.args...)
			shared := runBase(t, ws, base, []string{"NSRUN_INIT=raw", "NSRUN_SHARE_MEMORY=1"}, args...)
			if !strings.Contains(shared.stderr, "the raw init started at ") || !strings.Contains(shared.stderr, ", sharing this process's memory") {
				t.Fatalf("the raw init did not share nsrun's memory:\n%s", shared.stderr)
			}
			shared.stderr = withoutLog(shared.stderr)
			if g, s := pid1Blind(goRun), pid1Blind(shared); g.String() != s.String() {
				t.Errorf("go init:\n%v\n\nraw init, sharing memory:\n%v\n\n%s", g, s, firstDiff(g.String(), s.String()))
			}
		})
	}
}

// pid1Blind is r as a payload sees it when pid 1 is hidden from it (an
// init sharing nsrun's memory mounts /proc with hidepid=ptraceable): no
// line of pid 1's (its command line, as the probe prints it and ps shows
// it), no blank line its missing command line leaves, no complaint about
// it, and the mount option not shown.
func pid1Blind(r result) result {
	keep := func(s string, drop func(string) bool) string {
		var kept []string
		for _, l := range strings.Split(s, "\n") {
			if !drop(l) {
				kept = append(kept, l)
			}
		}
		return strings.Join(kept, "\n")
	}
	r.stdout = keep(strings.ReplaceAll(r.stdout, ",hidepid=ptraceable", ""), func(l string) bool { return l == "nsrun-init" || l == "" })
	r.stderr = keep(r.stderr, func(l string) bool { return strings.Contains(l, "/proc/1/cmdline") })
	return r
}

// withoutLog drops nsrun's -v lines. Each is one write, but it may land
// inside a line of the payload's (coreutils' error messages are two
// writes: "touch: ", then the rest), so it is cut out wherever it starts.
func withoutLog(stderr string) string {
	var kept strings.Builder
	for {
		i := strings.Index(stderr, "nsrun: ")
		if i < 0 {
			kept.WriteString(stderr)
			break
		}
		end := strings.IndexByte(stderr[i:], '\n')
		if end < 0 {
			end = len(stderr) - i
		} else {
			end++
		}
		kept.WriteString(stderr[:i])
		if strings.HasPrefix(stderr[i:], "nsrun: error") {
			kept.WriteString(stderr[i : i+end])
		}
		stderr = stderr[i+end:]
	}
	return strings.TrimSpace(kept.String())
}

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) && i < len(bl); i++ {
		if al[i] != bl[i] {
			return "first difference, line " + itoa(i+1) + ":\n go: " + al[i] + "\nraw: " + bl[i]
		}
	}
	return "one is a prefix of the other"
}

// TestRawInitForwardsSignals: the raw init, as pid 1, passes a signal
// sent to nsrun on to the payload, and reports the status it then ends
// with; the Go init does the same.
func TestRawInitForwardsSignals(t *testing.T) {
	need(t)
	for _, init := range []string{"go", "raw"} {
		cmd := exec.Command(nsrunBin, "--", "/bin/sh", "-c", `trap 'exit 7' TERM; echo ready; while :; do sleep 0.1; done`)
		cmd.Env = append(noShims(workspace(t)), "NSRUN_INIT="+init)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		line, _ := bufio.NewReader(out).ReadString('\n')
		if line != "ready\n" {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			t.Fatalf("%s init: %q instead of ready", init, line)
		}
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			t.Fatalf("%s init: the payload did not end on SIGTERM", init)
		}
		if code := cmd.ProcessState.ExitCode(); code != 7 {
			t.Errorf("%s init: exit %d after SIGTERM, want 7 (the payload's trap)", init, code)
		}
	}
}

// TestGoInitRunsTheSuite runs tests of the suite again with the Go init
// (NSRUN_INIT=go), the reference: the raw init is the default, which the
// rest of the suite runs on where it supports the plan. Run on the raw
// init they found what the differential tests could not: a cgroup v1
// limit the payload escaped (the raw init reads no spec, so nothing held
// it until it had joined its cgroups), and messages without the Go init's
// explanations; the Go init must keep passing them, so that it stays a
// choice for a caller the raw init breaks.
func TestGoInitRunsTheSuite(t *testing.T) {
	t.Setenv("NSRUN_INIT", "go")
	for _, c := range []struct {
		name string
		f    func(*testing.T)
	}{
		{"ExitStatuses", TestExitStatuses},
		{"CapabilitiesEmptyAndNoNewPrivs", TestCapabilitiesEmptyAndNoNewPrivs},
		{"OnlyStandardDescriptorsReachThePayload", TestOnlyStandardDescriptorsReachThePayload},
		{"StragglersKilledWhenPayloadExits", TestStragglersKilledWhenPayloadExits},
		{"SigtermIsForwarded", TestSigtermIsForwarded},
		{"NamespacesAreNew", TestNamespacesAreNew},
		{"Rlimits", TestRlimits},
		{"CgroupLimits", TestCgroupLimits},
		{"MaskedOrReadOnlyProcIsAClearError", TestMaskedOrReadOnlyProcIsAClearError},
		{"NestedSandbox", TestNestedSandbox},
	} {
		t.Run(c.name, c.f)
	}
}

// TestInitChosen: the raw init is the default where it supports the
// plan, NSRUN_INIT=go gives the Go init, a plan the raw init does not
// build gets the Go init, and -v says each; any other NSRUN_INIT is
// refused with one line and the setup status, before anything starts,
// whatever the isolation.
func TestInitChosen(t *testing.T) {
	need(t)
	ws := workspace(t)
	base := noShims(workspace(t))
	layered := workspace(t)
	for _, name := range []string{"secret", "src", "copy"} {
		writeFile(t, filepath.Join(ws, name), name+"\n")
	}
	for _, c := range []struct {
		name string
		env  []string
		args []string
		say  string
	}{
		{"the default", nil, []string{"--rw", ws}, "nsrun: the raw init started at "},
		{"raw", []string{"NSRUN_INIT=raw"}, []string{"--rw", ws}, "nsrun: the raw init started at "},
		{"go", []string{"NSRUN_INIT=go"}, []string{"--rw", ws}, "nsrun: the Go init: NSRUN_INIT=go\nnsrun: init started "},
		{"files and denied files", nil, []string{"--rw", ws, "--deny", ws + "/secret", "--file", ws + "/src", ws + "/copy", "--uid", "1234"},
			"nsrun: the raw init started at "},
		{"a plan the raw init does not build", nil, []string{"--rw", ws, "--overlay", layered}, "nsrun: the Go init: an overlay on " + layered + ": not supported by the raw init\nnsrun: init: "},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := runBase(t, ws, base, c.env, append(append([]string{"-v"}, c.args...), "--", "/bin/sh", "-c", "echo ran")...)
			if r.code != 0 || r.stdout != "ran" || !strings.Contains(r.stderr, c.say) {
				t.Errorf("want exit 0, ran, and %q in -v:\n%v", c.say, r)
			}
			if raw := strings.Contains(r.stderr, "the raw init started"); raw == strings.Contains(r.stderr, "the Go init: ") {
				t.Errorf("-v names both inits, or neither:\n%s", r.stderr)
			}
		})
	}
	for _, args := range [][]string{{"--rw", ws}, {"--isolation", "landlock", "--rw", ws}} {
		for _, value := range []string{"bogus", "Go", " raw"} {
			r := runBase(t, ws, base, []string{"NSRUN_INIT=" + value}, append(args, "--", "/bin/sh", "-c", "echo ran")...)
			want := "nsrun: NSRUN_INIT=" + value + ": not an init (raw, the default, or go, the Go init)"
			if r.code != 125 || r.stdout != "" || r.stderr != want {
				t.Errorf("%v NSRUN_INIT=%q: want exit 125, nothing run, and %q:\n%v", args, value, want, r)
			}
		}
	}
}

// noShims is this process's environment with home as HOME, no version
// manager's root and no NSRUN_FORK_HELPER: a version manager's shims get a
// layer of their own, an overlay, which the raw init does not build, and
// only the Go init has the fork helper.
func noShims(home string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "HOME", "PYENV_ROOT", "RBENV_ROOT", "NODENV_ROOT", "NSRUN_FORK_HELPER", "NSRUN_SHARE_MEMORY":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "HOME="+home)
}

// -v tells the init's steps alike on both inits: the same milestones in
// the same order, each with its time (the raw init's measured from its
// clone, the Go init's from its start), for the plain plan, the network
// (lo up) and the agent preset; and the Landlock-only stage alike for its
// raw and its Go child.
func TestRawInitTellsItsSteps(t *testing.T) {
	need(t)
	ws := workspace(t)
	base := noShims(workspace(t))
	steps := func(init string, args ...string) []string {
		r := runBase(t, ws, base, []string{"NSRUN_INIT=" + init}, append([]string{"-v"}, args...)...)
		if r.code != 0 {
			t.Fatalf("%s init: exit %d\n%s", init, r.code, r.stderr)
		}
		if init == "raw" && !strings.Contains(r.stderr, "nsrun: the raw init started at ") && !strings.Contains(r.stderr, "nsrun: init: the raw child started") {
			t.Fatalf("the raw init did not run:\n%s", r.stderr)
		}
		var got []string
		for _, l := range strings.Split(r.stderr, "\n") {
			name, ok := strings.CutPrefix(l, "nsrun: init: ")
			if !ok || strings.HasPrefix(name, "mount ") || strings.HasPrefix(name, "bind ") ||
				strings.HasPrefix(name, "the raw child started") || strings.HasPrefix(name, "the Go child: ") {
				continue
			}
			i := strings.LastIndex(name, " (")
			if i < 0 || !strings.HasSuffix(name, " ms)") {
				t.Errorf("%s init: a step without its time: %q", init, l)
				continue
			}
			got = append(got, name[:i])
		}
		return got
	}
	for _, c := range []struct {
		name string
		args []string
		want []string
	}{
		{"plain", []string{"--rw", ws, "--", "/bin/true"}, []string{"lo up", "mounts built, old root detached", "landlock applied",
			"capabilities dropped, no_new_privs set", "seccomp filter loaded", "payload started"}},
		{"agent preset", []string{"--preset", "agent", "--", "/bin/true"}, []string{"lo up", "mounts built, old root detached", "landlock applied",
			"capabilities dropped, no_new_privs set", "seccomp filter loaded", "network listeners in place", "payload started"}},
		{"Landlock only", []string{"--isolation", "landlock", "--rw", ws, "--", "/bin/true"}, []string{"landlock applied",
			"capabilities dropped, seccomp filters loaded", "payload started"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			goSteps, rawSteps := steps("go", c.args...), steps("raw", c.args...)
			if !reflect.DeepEqual(goSteps, c.want) {
				t.Errorf("go init's steps: %q, want %q", goSteps, c.want)
			}
			if !reflect.DeepEqual(rawSteps, goSteps) {
				t.Errorf("raw init's steps: %q, the Go init's %q", rawSteps, goSteps)
			}
		})
	}
}
