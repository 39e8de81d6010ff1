//go:build linux

package integration

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestPolicyExplainAndShow(t *testing.T) {
	ws := workspace(t)
	writeFile(t, filepath.Join(ws, "secrets", "key"), "k")
	writeFile(t, filepath.Join(ws, ".git", "config"), "c")
	r := run(t, ws, "policy", "explain", "--rw", ws, "--ro", filepath.Join(ws, ".git"), "--deny", filepath.Join(ws, "secrets"),
		filepath.Join(ws, "src", "a.go"), filepath.Join(ws, ".git", "config"), filepath.Join(ws, "secrets", "key"), "/etc/passwd", "/tmp/x")
	if r.code != 0 {
		t.Fatal(r)
	}
	for _, want := range []string{
		ws + "/src/a.go  rw     by rw " + ws + " (user)",
		ws + "/.git/config  ro     by ro " + ws + "/.git (user)",
		ws + "/secrets/key  deny   by deny " + ws + "/secrets (user)",
		"/etc/passwd",
		"/tmp/x",
	} {
		if !strings.Contains(strings.Join(strings.Fields(r.stdout), " "), strings.Join(strings.Fields(want), " ")) {
			t.Errorf("explain lacks %q:\n%s", want, r.stdout)
		}
	}
	if !strings.Contains(r.stdout, "tmpfs  by tmpfs /tmp (nsrun)") && !strings.Contains(strings.Join(strings.Fields(r.stdout), " "), "tmpfs by tmpfs /tmp (nsrun)") {
		t.Errorf("/tmp/x should be the private tmpfs:\n%s", r.stdout)
	}
	r = run(t, ws, "policy", "show", "--preset", "readonly")
	if r.code != 0 || !strings.Contains(r.stdout, "tmpfs") || strings.Contains(r.stdout, " rw ") {
		t.Errorf("show readonly: %v", r)
	}
	r = run(t, ws, "policy", "frobnicate")
	if r.code != 125 {
		t.Errorf("unknown policy command: %v", r)
	}
}

// A mandatory deny in a policy file cannot be reopened by a deeper flag,
// and the report says what was dropped.
func TestPolicyFileSourcesHold(t *testing.T) {
	ws := workspace(t)
	writeFile(t, filepath.Join(ws, "secrets", "sub", "key"), "s3cret")
	pol := filepath.Join(ws, "policy.json")
	writeFile(t, pol, `{"version": 1, "rules": [
		{"path": ".", "access": "rw"},
		{"path": "secrets", "access": "deny", "source": "mandatory"}]}`)
	rep := filepath.Join(ws, "r.json")
	r := run(t, ws, "--policy", pol, "--rw", filepath.Join(ws, "secrets", "sub"), "--report", rep, "--",
		"/bin/sh", "-c", "cat "+ws+"/secrets/sub/key; echo x > "+ws+"/ok")
	if strings.Contains(r.stdout, "s3cret") {
		t.Errorf("the mandatory deny was reopened: %v", r)
	}
	if !strings.Contains(r.stderr, "dropped by deny "+ws+"/secrets (mandatory)") {
		t.Errorf("no warning about the dropped rule: %v", r)
	}
	if got := readFile(t, rep); !strings.Contains(got, `"overruled"`) {
		t.Errorf("report lacks overruled rules: %s", got)
	}
	expect(t, "the file's rw", readFile(t, filepath.Join(ws, "ok")), "x\n")
	bad := filepath.Join(ws, "bad.json")
	writeFile(t, bad, `{"version": 1, "rulez": []}`)
	r = run(t, ws, "--policy", bad, "--", "/bin/true")
	if r.code != 125 || !strings.Contains(r.stderr, `unknown field "rulez"`) || !strings.Contains(r.stderr, bad) {
		t.Errorf("unknown field: %v", r)
	}
}

func TestAgentPresetDoesRealWork(t *testing.T) {
	need(t)
	ws := workspace(t)
	home := workspace(t)
	writeFile(t, filepath.Join(home, ".ssh", "id_ed25519"), "PRIVATE KEY")
	writeFile(t, filepath.Join(ws, "main.go"), "package main\n\nfunc main() { println(\"built\") }\n")
	writeFile(t, filepath.Join(ws, "go.mod"), "module demo\n\ngo 1.21\n")
	// The repository is made before the run: the preset keeps a workspace
	// that has none from becoming one.
	if out, err := exec.Command("git", "init", "-q", ws).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = "/usr/local/go/bin/go"
	}
	if _, err := os.Stat(goBin); err != nil {
		t.Skip("no Go toolchain here (the container suite's image has none)")
	}
	script := `set -e
git -c user.name=t -c user.email=t@example.com commit -q --allow-empty -m first && echo committed
` + goBin + ` build -o demo . && ./demo
test ! -s ` + home + `/.ssh/id_ed25519 && echo ssh-hidden
echo "home=$HOME"`
	if npm, err := exec.LookPath("npm"); err == nil {
		pkg := filepath.Join(ws, "pkg")
		writeFile(t, filepath.Join(pkg, "package.json"), `{"name": "localpkg", "version": "1.0.0"}`)
		writeFile(t, filepath.Join(pkg, "index.js"), "module.exports = 42;\n")
		script += "\ncd " + pkg + " && " + npm + " pack --silent >/dev/null && mkdir -p ../app && cd ../app && " +
			npm + " install --silent --no-audit --no-fund ../pkg/localpkg-1.0.0.tgz && node -e 'console.log(\"npm\", require(\"localpkg\"))'"
	}
	state := workspace(t)
	// A cold go build and an npm install: minutes on a loaded machine.
	r := runFor(t, 5*time.Minute, ws, os.Environ(), []string{"HOME=" + home, "XDG_STATE_HOME=" + state}, "--preset", "agent", "--", "/bin/bash", "-c", script)
	if r.code != 0 {
		t.Fatalf("%v", r)
	}
	for _, want := range []string{"committed", "built", "ssh-hidden", "home=" + state + "/nsrun/agent/home"} {
		if !strings.Contains(r.stdout+r.stderr, want) {
			t.Errorf("output lacks %q: %v", want, r)
		}
	}
	if _, err := exec.LookPath("npm"); err == nil && !strings.Contains(r.stdout, "npm 42") {
		t.Errorf("npm install of a local tarball: %v", r)
	}
	if _, err := os.Stat(filepath.Join(ws, ".git")); err != nil {
		t.Errorf("the commit is not in the workspace: %v", err)
	}
}

func TestPrintProfile(t *testing.T) {
	ws := workspace(t)
	r := run(t, ws, "--print-profile", "--rw", ws, "--net", "host")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "(version 1)\n(deny default)") || !strings.Contains(r.stdout, "(allow network*)") ||
		!strings.Contains(r.stdout, ";; -D P") {
		t.Errorf("--print-profile: %v", r)
	}
	for _, bad := range [][]string{{"--uid", "0"}, {"--hostname", "x"}, {"--isolation", "landlock"}, {"--tmpfs", ws}} {
		r := run(t, ws, append([]string{"--print-profile"}, bad...)...)
		if r.code != 125 {
			t.Errorf("--print-profile %v: %v", bad, r)
		}
	}
}
