package main

import (
	"os"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nsrun/nsrun"
	"github.com/nsrun/nsrun/netproxy"
)

func TestParseArgs(t *testing.T) {
	o, err := parseArgs([]string{"--rw", "ws", "--ro", "ws/.git", "--deny", "s", "--tmpfs", "c", "--root", "/r",
		"--chdir", "ws", "--env", "A=b=c", "--unset-env", "B", "--clear-env", "--hostname", "h", "--uid", "0",
		"--gid", "5", "--timeout", "90", "--net", "host", "--report", "-", "-v", "-q", "--", "--cmd", "--rw"})
	if err != nil {
		t.Fatal(err)
	}
	wantRules := []nsrun.Rule{{Path: "ws", Access: nsrun.ReadWrite}, {Path: "ws/.git", Access: nsrun.ReadOnly},
		{Path: "s", Access: nsrun.Deny}, {Path: "c", Access: nsrun.Tmpfs}}
	if !reflect.DeepEqual(o.policy.Rules, wantRules) {
		t.Errorf("rules %+v", o.policy.Rules)
	}
	if o.policy.Root != "/r" || o.dir != "ws" || o.policy.Hostname != "h" || *o.policy.UID != 0 || *o.policy.GID != 5 ||
		o.timeout != 90*time.Second || o.policy.Net != nsrun.NetHost || o.report != "-" || !o.verbose || !o.quiet {
		t.Errorf("options %+v", o)
	}
	if !reflect.DeepEqual(o.envOps, []envOp{{kind: envSet, key: "A", value: "b=c"}, {kind: envUnset, key: "B"}, {kind: envClear}}) {
		t.Errorf("env ops %+v", o.envOps)
	}
	if !reflect.DeepEqual(o.args, []string{"--cmd", "--rw"}) {
		t.Errorf("args %q", o.args)
	}
	o, err = parseArgs([]string{"--rw", "ws", "make", "-j", "--rw"})
	if err != nil || !reflect.DeepEqual(o.args, []string{"make", "-j", "--rw"}) {
		t.Errorf("the command starts at the first non-option: %q %v", o.args, err)
	}
}

func TestParseLayerOptions(t *testing.T) {
	o, err := parseArgs([]string{"--isolation", "landlock", "--landlock", "off", "--strict", "--proc", "host",
		"--allow-connect", "443", "--allow-connect", "udp:53", "--allow-bind", "tcp:8000-8010", "x"})
	if err != nil {
		t.Fatal(err)
	}
	p := o.policy
	if p.Isolation != nsrun.IsolationLandlock || p.Landlock != nsrun.LandlockOff || !p.Strict || p.Proc != nsrun.ProcHost {
		t.Errorf("policy %+v", p)
	}
	for _, m := range []nsrun.TTYMode{nsrun.TTYAuto, nsrun.TTYAlways, nsrun.TTYNever} {
		if o, err := parseArgs([]string{"--tty", m.String(), "x"}); err != nil || o.tty != m {
			t.Errorf("--tty %s: %v %v", m, o, err)
		}
	}
	wantC := []nsrun.PortRange{{Proto: "tcp", First: 443, Last: 443}, {Proto: "udp", First: 53, Last: 53}}
	wantB := []nsrun.PortRange{{Proto: "tcp", First: 8000, Last: 8010}}
	if !reflect.DeepEqual(p.AllowConnect, wantC) || !reflect.DeepEqual(p.AllowBind, wantB) {
		t.Errorf("ports %+v %+v", p.AllowConnect, p.AllowBind)
	}
}

func TestParseArgsErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--nope", "x"}, "unknown option --nope"},
		{[]string{"--rww", "ws", "x"}, "unknown option --rww (did you mean --rw?)"},
		{[]string{"--alow-host=x", "x"}, "unknown option --alow-host (did you mean --allow-host?)"},
		{[]string{"--verison", "x"}, "unknown option --verison (did you mean --version?)"},
		{[]string{"-z", "x"}, "unknown option -z"},
		{[]string{"--rw"}, "option --rw needs a value"},
		{[]string{"--env", "X", "x"}, `--env "X": want KEY=VALUE`},
		{[]string{"--unset-env", "A=1", "x"}, "want a variable name"},
		{[]string{"--timeout", "0", "x"}, "must be positive"},
		{[]string{"--timeout", "1d", "x"}, "want a duration"},
		{[]string{"--uid", "-1", "x"}, "outside the ids"},
		{[]string{"--gid", "4294967295", "x"}, "outside the ids"},
		{[]string{"--net", "all", "x"}, "want none or host"},
		{[]string{"--hostname", strings.Repeat("h", 65), "x"}, "1 to 64"},
		{[]string{"--rw", "ws"}, "no command given"},
		{[]string{"--isolation", "none", "x"}, "want full or landlock"},
		{[]string{"--landlock", "on", "x"}, "want auto or off"},
		{[]string{"--tty", "yes", "x"}, `--tty "yes": want auto, always or never`},
		{[]string{"--allow-connect", "0", "x"}, "from 1 to 65535"},
		{[]string{"--allow-connect", "70000", "x"}, "from 1 to 65535"},
		{[]string{"--allow-bind", "90-80", "x"}, "range"},
		{[]string{"--allow-bind", "sctp:80", "x"}, "tcp: or udp:"},
		{[]string{"--", ""}, "no command given"},
		{[]string{"--tmpfs-size", "9223372036854775809", "x"}, `--tmpfs-size "9223372036854775809": is above 9223372036854775807 bytes`},
		{[]string{"--tmpfs-size", "18446744073709551616", "x"}, `--tmpfs-size "18446744073709551616": is above 9223372036854775807 bytes`},
		{[]string{"--memory", "18446744073709551615", "x"}, `--memory "18446744073709551615": is above 9223372036854775807 bytes`},
		{[]string{"--memory", "0", "x"}, `--memory "0": want a size above zero`},
		{[]string{"--pids", "4294967295", "x"}, `--pids "4294967295": want a number of processes from 1 to 4194304`},
		{[]string{"--cpu", "NaN", "x"}, `--cpu "NaN": want a number of CPUs from 0.01 to 4096`},
		{[]string{"--cpu", "0.001", "x"}, `--cpu "0.001": want a number of CPUs from 0.01 to 4096`},
		{[]string{"--uid", "99999999999999999999", "x"}, `--uid "99999999999999999999": 99999999999999999999 is outside the ids`},
		{[]string{"--rlimit", "nofile=99999999999999999999", "x"}, `--rlimit "nofile=99999999999999999999": 99999999999999999999 is above 18446744073709551615`},
		{[]string{"--timeout", "99999999999", "x"}, `--timeout "99999999999": 99999999999 is above 9223372036 seconds`},
	} {
		_, err := parseArgs(tc.args)
		if strings.HasPrefix(tc.want, "unknown option") && err != nil && err.Error() != tc.want {
			t.Errorf("parseArgs(%q) = %v, want exactly %q", tc.args, err, tc.want)
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("parseArgs(%q) = %v, want %q", tc.args, err, tc.want)
		}
	}
}

// The environment options apply in command-line order (--env A=1
// --clear-env keeps nothing), and what the caller had and the payload does
// not get is handed to the library to remove and report.
func TestEnvironment(t *testing.T) {
	caller := []string{"PATH=/bin", "HOME=/root", "GITHUB_TOKEN=t", "AWS_KEY=k", "AWS_REGION=eu"}
	for _, tc := range []struct {
		name             string
		ops              []envOp
		env, unset, keep []string
	}{
		{"nothing", nil, caller, nil, nil},
		{"set, replace and unset", []envOp{{kind: envUnset, key: "GITHUB_TOKEN"}, {kind: envSet, key: "NEW", value: "1"}, {kind: envSet, key: "PATH", value: "/usr/bin"}},
			[]string{"PATH=/usr/bin", "HOME=/root", "GITHUB_TOKEN=t", "AWS_KEY=k", "AWS_REGION=eu", "NEW=1"}, []string{"GITHUB_TOKEN"}, []string{"PATH", "NEW"}},
		{"a pattern, then one let through", []envOp{{kind: envUnset, key: "aws_*"}, {kind: envKeep, key: "AWS_REGION"}},
			[]string{"PATH=/bin", "HOME=/root", "GITHUB_TOKEN=t", "AWS_KEY=k", "AWS_REGION=eu"}, []string{"AWS_KEY"}, []string{"AWS_REGION"}},
		{"clear after set", []envOp{{kind: envSet, key: "A", value: "1"}, {kind: envClear}},
			caller, []string{"PATH", "HOME", "GITHUB_TOKEN", "AWS_KEY", "AWS_REGION"}, nil},
		{"clear, then keep and set", []envOp{{kind: envClear}, {kind: envKeep, key: "PATH"}, {kind: envSet, key: "B", value: ""}},
			[]string{"PATH=/bin", "HOME=/root", "GITHUB_TOKEN=t", "AWS_KEY=k", "AWS_REGION=eu", "B="}, []string{"HOME", "GITHUB_TOKEN", "AWS_KEY", "AWS_REGION"}, []string{"PATH", "B"}},
		{"set, then unset", []envOp{{kind: envSet, key: "X", value: "1"}, {kind: envUnset, key: "X"}}, caller, nil, nil},
		{"an explicit value over a pattern", []envOp{{kind: envUnset, key: "*TOKEN*"}, {kind: envSet, key: "GITHUB_TOKEN", value: "mine"}},
			[]string{"PATH=/bin", "HOME=/root", "GITHUB_TOKEN=mine", "AWS_KEY=k", "AWS_REGION=eu"}, nil, []string{"GITHUB_TOKEN"}},
	} {
		env, unset, keep := environment(caller, tc.ops)
		if !reflect.DeepEqual(env, tc.env) || !reflect.DeepEqual(unset, tc.unset) || !reflect.DeepEqual(keep, tc.keep) {
			t.Errorf("%s:\nenv   %q (want %q)\nunset %q (want %q)\nkeep  %q (want %q)", tc.name, env, tc.env, unset, tc.unset, keep, tc.keep)
		}
	}
}

func TestMergePresetFileAndFlags(t *testing.T) {
	dir := t.TempDir()
	file := dir + "/p.json"
	if err := os.WriteFile(file, []byte(`{"version": 1, "preset": "build", "net": "none", "hostname": "fromfile",
		"rules": [{"path": "/etc", "access": "ro", "source": "mandatory"}], "env": ["A=file"], "timeout": "5s"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	o, err := parseArgs([]string{"--policy", file, "--hostname", "fromflag", "--rw", "/var", "--env", "A=flag", "x"})
	if err != nil {
		t.Fatal(err)
	}
	m, err := merge(o, []string{"A=env", "B=env"})
	if err != nil {
		t.Fatal(err)
	}
	p := m.policy
	// The build preset gives the host network; the file takes it back.
	if p.Net != nsrun.NetNone || p.Hostname != "fromflag" || p.Home != nsrun.HomePersistent || m.timeout != 5*time.Second {
		t.Errorf("merged %+v", p)
	}
	last := p.Rules[len(p.Rules)-1]
	if len(p.Rules) != 3 || p.Rules[1].Source != nsrun.SourceMandatory || last.Path != "/var" || last.Source != nsrun.SourceUser {
		t.Errorf("rules %+v", p.Rules)
	}
	// The refusing proxy is the agent preset's alone.
	if !reflect.DeepEqual(m.env, []string{"A=flag", "B=env"}) || p.RefusesNetwork() {
		t.Errorf("env %q", m.env)
	}
	o, err = parseArgs([]string{"--preset", "agent", "--rw", "/var", "x"})
	if err != nil {
		t.Fatal(err)
	}
	if m, err = merge(o, []string{"B=env"}); err != nil {
		t.Fatal(err)
	}
	if got := m.policy.RefusesNetwork(); got != (runtime.GOOS == "linux") {
		t.Errorf("agent preset: RefusesNetwork %v", got)
	}
	if runtime.GOOS == "linux" && !slices.Contains(m.env, "https_proxy=http://"+netproxy.ProxyAddr.String()) {
		t.Errorf("agent preset env %q lacks the refusing proxy", m.env)
	}
	o, _ = parseArgs([]string{"--policy", dir + "/missing.json", "x"})
	if _, err := merge(o, nil); err == nil || !strings.Contains(err.Error(), "--policy "+dir+"/missing.json") {
		t.Errorf("missing file: %v", err)
	}
	if _, err := parseArgs([]string{"--preset", "yolo", "x"}); err == nil || !strings.Contains(err.Error(), "unknown preset") {
		t.Errorf("unknown preset: %v", err)
	}
}

// --kill-after is the grace between the timeout's SIGTERM and SIGKILL: it
// needs a timeout, from the flags or the policy file, and is refused
// without one.
func TestKillAfter(t *testing.T) {
	dir := t.TempDir()
	file := dir + "/p.json"
	if err := os.WriteFile(file, []byte(`{"version": 1, "timeout": "5s", "kill_after": "3s"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args           []string
		timeout, grace time.Duration
		errText        string
	}{
		{args: []string{"--timeout", "10s", "--kill-after", "2s", "x"}, timeout: 10 * time.Second, grace: 2 * time.Second},
		{args: []string{"--kill-after", "5", "--timeout", "1m", "x"}, timeout: time.Minute, grace: 5 * time.Second},
		{args: []string{"--policy", file, "x"}, timeout: 5 * time.Second, grace: 3 * time.Second},
		{args: []string{"--policy", file, "--kill-after", "1s", "x"}, timeout: 5 * time.Second, grace: time.Second},
		{args: []string{"--kill-after", "2s", "x"}, errText: "--kill-after 2s needs --timeout"},
		{args: []string{"--timeout", "1s", "--kill-after", "0", "x"}, errText: `--kill-after "0": must be positive`},
		{args: []string{"--timeout", "1s", "--kill-after", "soon", "x"}, errText: `--kill-after "soon": want a duration`},
	} {
		o, err := parseArgs(tc.args)
		var m *merged
		if err == nil {
			m, err = merge(o, nil)
		}
		switch {
		case tc.errText != "":
			if err == nil || !strings.Contains(err.Error(), tc.errText) {
				t.Errorf("%q: %v, want %q", tc.args, err, tc.errText)
			}
		case err != nil:
			t.Errorf("%q: %v", tc.args, err)
		case m.timeout != tc.timeout || m.killAfter != tc.grace:
			t.Errorf("%q: timeout %v, kill after %v", tc.args, m.timeout, m.killAfter)
		}
	}
}

// bubblewrap's two-argument options take the two arguments that follow,
// whatever they look like; the command still starts after them.
func TestParseFilesystemOptions(t *testing.T) {
	o, err := parseArgs([]string{"--bind", "src", "/w", "--ro-bind", "-odd", "/r", "--dev-bind", "/dev/kvm", "/dev/k", "--file", "h", "/etc/hosts",
		"--symlink", "usr/lib", "/lib", "--dir", "/d", "--dev", "/dev/fuse", "--dev-block", "/dev/loop0", "--overlay", "ws",
		"--keep-changes", "k", "--sys", "host", "--rw=x", "-v", "cmd", "--bind"})
	if err != nil {
		t.Fatal(err)
	}
	want := []nsrun.Rule{
		{Path: "/w", From: "src", Access: nsrun.ReadWrite}, {Path: "/r", From: "-odd", Access: nsrun.ReadOnly},
		{Path: "/dev/k", From: "/dev/kvm", Access: nsrun.Device}, {Path: "/etc/hosts", From: "h", Access: nsrun.Copy},
		{Path: "/lib", From: "usr/lib", Access: nsrun.Symlink}, {Path: "/d", Access: nsrun.Directory},
		{Path: "/dev/fuse", Access: nsrun.Device}, {Path: "/dev/loop0", Access: nsrun.BlockDevice}, {Path: "ws", Access: nsrun.Overlay},
		{Path: "x", Access: nsrun.ReadWrite},
	}
	if !reflect.DeepEqual(o.policy.Rules, want) {
		t.Errorf("rules\n%+v\nwant\n%+v", o.policy.Rules, want)
	}
	if o.policy.KeepChanges != "k" || o.policy.Sys != nsrun.SysHost || !o.verbose || !reflect.DeepEqual(o.args, []string{"cmd", "--bind"}) {
		t.Errorf("options %+v, args %q", o.policy, o.args)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--bind", "a"}, "option --bind needs two arguments: --bind SRC DEST"},
		{[]string{"--bind", "a", "--", "x"}, "needs two arguments"},
		{[]string{"--bind=a", "b", "x"}, "takes two arguments"},
		{[]string{"--symlink", "", "/l", "x"}, `--symlink "" "/l": empty path`},
		{[]string{"--sys", "none", "x"}, `--sys "none": want private or host`},
	} {
		if _, err := parseArgs(tc.args); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.args, err, tc.want)
		}
	}
}

// TestVersionOption: --version is the version command, as most tools have it.
func TestVersionOption(t *testing.T) {
	out, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	if code := run([]string{"--version"}, os.Stdin, out, out); code != 0 {
		t.Errorf("--version: exit %d", code)
	}
	b, _ := os.ReadFile(out.Name())
	if !strings.HasPrefix(string(b), "nsrun ") {
		t.Errorf("--version printed %q", b)
	}
}
