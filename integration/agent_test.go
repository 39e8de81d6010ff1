//go:build linux

package integration

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// agentEnv is the environment the agent preset runs in for a test: nsrun's
// state (the persistent HOME) and the caller's HOME in fresh directories,
// and a git identity in that HOME.
type agentEnv struct {
	home, state string
	env         []string
}

func newAgentEnv(t *testing.T) agentEnv {
	t.Helper()
	a := agentEnv{home: workspace(t), state: workspace(t)}
	writeFile(t, filepath.Join(a.home, ".gitconfig"), "[user]\n\tname = Host Person\n\temail = host@example.com\n"+
		"[credential]\n\thelper = store\n[alias]\n\tsecret = !echo from-host-config\n")
	a.env = []string{"HOME=" + a.home, "XDG_STATE_HOME=" + a.state}
	return a
}

// run runs the agent preset in dir with a shell script.
func (a agentEnv) run(t *testing.T, dir string, args []string, script string) result {
	t.Helper()
	argv := append(append([]string{"--preset", "agent"}, args...), "--", "/bin/sh", "-c", script)
	return runClean(t, dir, a.env, argv...)
}

// runClean is runEnv without the caller's git, XDG and HOME variables.
func runClean(t *testing.T, dir string, env []string, args ...string) result {
	t.Helper()
	return runBase(t, dir, cleanEnv(), env, args...)
}

// hostGit runs git on the host as the user would after the sandbox, with a
// configuration of its own (the test's HOME).
func (a agentEnv) hostGit(t *testing.T, dir string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); !strings.HasPrefix(k, "GIT_") && k != "XDG_CONFIG_HOME" && k != "HOME" {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "HOME="+a.home, "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func (a agentEnv) mustGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := a.hostGit(t, dir, append([]string{"-c", "protocol.file.allow=always", "-c", "init.defaultBranch=main"}, args...)...)
	if err != nil {
		t.Fatalf("git %v in %s: %v\n%s", args, dir, err, out)
	}
	return out
}

func (a agentEnv) newRepo(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	a.mustGit(t, dir, "init", "-q")
	writeFile(t, filepath.Join(dir, "f"), "one\n")
	a.mustGit(t, dir, "add", "f")
	a.mustGit(t, dir, "commit", "-qm", "one")
}

// layouts makes the three kinds of workspace: a plain repository, a
// linked worktree whose main repository is elsewhere, and a superproject
// with a submodule. It returns the workspace of each.
func (a agentEnv) layouts(t *testing.T) map[string]string {
	t.Helper()
	base := workspace(t)
	plain := filepath.Join(base, "plain")
	a.newRepo(t, plain)
	main, wt := filepath.Join(base, "main"), filepath.Join(base, "wt")
	a.newRepo(t, main)
	a.mustGit(t, main, "branch", "packed")
	a.mustGit(t, main, "pack-refs", "--all")
	a.mustGit(t, main, "worktree", "add", "-q", wt)
	lib, sup := filepath.Join(base, "lib"), filepath.Join(base, "sup")
	a.newRepo(t, lib)
	a.newRepo(t, sup)
	a.mustGit(t, sup, "submodule", "add", "-q", lib, "sub")
	a.mustGit(t, sup, "commit", "-qm", "sub")
	return map[string]string{"plain": plain, "worktree": wt, "submodule": sup}
}

// Git works under the preset in all three layouts, with the host's
// identity and nothing else of its configuration.
func TestAgentGitWorks(t *testing.T) {
	need(t)
	a := newAgentEnv(t)
	for name, ws := range a.layouts(t) {
		t.Run(name, func(t *testing.T) {
			script := `set -e
echo two >> f && git commit -qam two
git checkout -qb topic && echo three >> f && git commit -qam three
echo wip >> f && git stash -q && git stash list | grep -q . && git stash pop -q && git checkout -q -- f
git checkout -q - && echo four > g && git add g && git commit -qm four
git checkout -q topic && git rebase -q - && git log --format=%s | head -1
git branch -q -f old HEAD~1 && git branch -q -D old 2>/dev/null
git worktree list >/dev/null
git log -1 --format='%an <%ae>'
echo "helper=$(git config credential.helper || true) alias=$(git config alias.secret || true)"
mkdir nested && cd nested && git init -q && git commit -q --allow-empty -m nested && echo nested-ok`
			if name == "submodule" {
				script += "\ncd ../sub && echo s >> f && git commit -qam sub-change && cd .. && git add sub && git commit -qm bump && echo sub-ok"
			}
			r := a.run(t, ws, nil, script)
			if r.code != 0 {
				t.Fatal(r)
			}
			for _, want := range []string{"three\n", "Host Person <host@example.com>", "helper= alias=", "nested-ok"} {
				if !strings.Contains(r.stdout, want) {
					t.Errorf("output lacks %q: %v", want, r)
				}
			}
			if name == "submodule" && !strings.Contains(r.stdout, "sub-ok") {
				t.Errorf("the submodule: %v", r)
			}
			if log := a.mustGit(t, ws, "log", "--format=%s", "topic"); !strings.Contains(log, "three\nfour\ntwo\n") {
				t.Errorf("the host sees %q", log)
			}
		})
	}
}

// Each way the payload can turn a repository against the host is tried;
// afterwards the host's git status and commit run nothing of the
// payload's (its marker is absent) and the protected files are unchanged.
func TestAgentGitAttacks(t *testing.T) {
	need(t)
	a := newAgentEnv(t)
	ls := a.layouts(t)
	marker := filepath.Join(workspace(t), "ran")
	evilDir := func(ws string) string {
		// A git directory of the payload's own, whose fsmonitor marks.
		return `d=` + ws + `/.evil; rm -rf $d; mkdir -p $d && git init -q --bare $d && git -C $d config core.fsmonitor "touch ` + marker + `; false" && git -C $d config core.bare false`
	}
	hook := `printf '#!/bin/sh\ntouch ` + marker + `\n'`
	for i, tc := range []struct {
		name, layout, script string
		killed               bool // nsrun ends the sandbox: a name it keeps absent appeared
	}{
		{"write config", "plain", `echo "[core] fsmonitor = touch ` + marker + `" >> .git/config`, false},
		{"write a hook", "plain", hook + ` > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit`, false},
		{"replace hooks", "plain", `mv .git/hooks .git/h2; mkdir -p /tmp/h && ` + hook + ` > /tmp/h/pre-commit && chmod +x /tmp/h/pre-commit && cp -r /tmp/h .git/hooks2 && mv -T .git/hooks2 .git/hooks`, false},
		{"replace config by rename", "plain", `echo "[core]" > c && echo "fsmonitor = touch ` + marker + `" >> c && mv c .git/config`, false},
		{"move .git away", "plain", evilDir(".") + ` && mv .git .git-old; mv .evil .git`, false},
		{"plant commondir", "plain", evilDir("$PWD") + ` && echo $PWD/.evil > c && mv c .git/commondir; sleep 5`, true},
		{"plant info/attributes", "plain", `echo '* diff=x' > a && mv a .git/info/attributes; sleep 5`, true},
		{"rewrite the worktree's .git file", "worktree", evilDir(".") + ` && echo "gitdir: $PWD/.evil" > .git`, false},
		{"replace the worktree's .git file", "worktree", evilDir(".") + ` && echo "gitdir: $PWD/.evil" > g && mv g .git`, false},
		{"rewrite the worktree's commondir", "worktree", evilDir("$PWD") + ` && echo $PWD/.evil > "$(git rev-parse --git-dir)/commondir"`, false},
		{"plant commondir in the main repository", "worktree", evilDir("$PWD") + ` && echo $PWD/.evil > c && mv c "$(git rev-parse --git-common-dir)/commondir"; sleep 5`, true},
		{"write the main repository's config", "worktree", `echo "[core] fsmonitor = touch ` + marker + `" >> "$(git rev-parse --git-common-dir)/config"`, false},
		{"rewrite the submodule's .git file", "submodule", evilDir("sub") + ` && echo "gitdir: $PWD/sub/.evil" > sub/.git`, false},
		{"write the submodule's config", "submodule", `echo "[core] fsmonitor = touch ` + marker + `" >> .git/modules/sub/config`, false},
		{"move the submodule's git directory", "submodule", evilDir(".git/modules") + ` && mv .git/modules/sub .git/modules/old; mv .git/modules/.evil .git/modules/sub`, false},
		{"plant a hook in the submodule", "submodule", hook + ` > .git/modules/sub/hooks/post-checkout; chmod +x .git/modules/sub/hooks/post-checkout`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os.Remove(marker)
			ws := ls[tc.layout]
			gitFiles := snapshot(t, ws)
			// A git directory an earlier payload made in the same workspace
			// is a repository the next run finds and protects: each
			// subtest makes its own.
			script := strings.ReplaceAll(tc.script, ".evil", ".evil"+itoa(i))
			r := a.run(t, ws, []string{"--report", "-"}, script)
			if tc.killed {
				if r.code != 137 || !strings.Contains(r.stderr, "appeared") || !strings.Contains(r.stderr, "was removed; the sandbox was ended") {
					t.Errorf("nsrun did not end the sandbox: %v", r)
				}
				if !strings.Contains(r.stderr, `"appeared": [`) || !strings.Contains(r.stderr, `"removed": true`) {
					t.Errorf("the report does not say what appeared: %s", r.stderr)
				}
			}
			for _, args := range [][]string{{"status"}, {"-C", filepath.Join(ws, "sub"), "status"}, {"commit", "-q", "--allow-empty", "-m", "host"}} {
				if args[0] == "-C" && tc.layout != "submodule" {
					continue
				}
				out, err := a.hostGit(t, ws, args...)
				if err != nil {
					t.Errorf("host git %v: %v\n%s", args, err, out)
				}
			}
			if _, err := os.Stat(marker); err == nil {
				t.Fatalf("host git ran the payload's program (%s exists); payload: %v", marker, r)
			}
			if diff := snapshot(t, ws).diff(gitFiles); diff != "" {
				t.Errorf("protected files changed on the host: %s\npayload: %v", diff, r)
			}
		})
	}
}

// A repository the payload registers as a submodule is told of afterwards:
// the host's git status would run git in it.
func TestAgentNestedRepositoryReported(t *testing.T) {
	need(t)
	a := newAgentEnv(t)
	ws := workspace(t)
	a.newRepo(t, ws)
	r := a.run(t, ws, []string{"--report", "-"}, `mkdir -p x/evil && cd x/evil && git init -q && git commit -q --allow-empty -m e && cd ../.. &&
git update-index --add --cacheinfo 160000,$(git -C x/evil rev-parse HEAD),x/evil`)
	evil := filepath.Join(ws, "x", "evil")
	if r.code != 0 || !strings.Contains(r.stderr, evil+" is a repository the sandbox made and registered as a submodule") ||
		!strings.Contains(r.stderr, `"nested_repositories": [`) {
		t.Errorf("not reported: %v", r)
	}
}

// snapshot is the content of what git trusts in a workspace's
// repositories, and of each .git file.
type gitSnapshot map[string]string

func snapshot(t *testing.T, ws string) gitSnapshot {
	t.Helper()
	s := gitSnapshot{}
	var dirs []string
	filepath.Walk(ws, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return nil
		}
		name := fi.Name()
		switch {
		case name == ".git" && fi.Mode().IsRegular():
			s[p] = readFile(t, p)
			b, _ := os.ReadFile(p)
			if g, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: "); ok {
				if !filepath.IsAbs(g) {
					g = filepath.Join(filepath.Dir(p), g)
				}
				dirs = append(dirs, g)
			}
		case name == ".git" && fi.IsDir():
			dirs = append(dirs, p)
		}
		return nil
	})
	for _, d := range dirs {
		for _, dd := range []string{d, gitCommon(d)} {
			for _, f := range []string{"config", "commondir", "gitdir", "hooks/pre-commit", "hooks/post-checkout", "info/attributes"} {
				if b, err := os.ReadFile(filepath.Join(dd, f)); err == nil {
					s[filepath.Join(dd, f)] = string(b)
				} else {
					s[filepath.Join(dd, f)] = "(absent)"
				}
			}
			if ents, err := os.ReadDir(filepath.Join(dd, "hooks")); err == nil {
				var names []string
				for _, e := range ents {
					names = append(names, e.Name())
				}
				s[filepath.Join(dd, "hooks")+"/"] = strings.Join(names, " ")
			}
		}
	}
	return s
}

func gitCommon(d string) string {
	b, err := os.ReadFile(filepath.Join(d, "commondir"))
	if err != nil {
		return d
	}
	c := strings.TrimSpace(string(b))
	if !filepath.IsAbs(c) {
		c = filepath.Join(d, c)
	}
	return filepath.Clean(c)
}

func (s gitSnapshot) diff(before gitSnapshot) string {
	var out []string
	for k, v := range before {
		if s[k] != v {
			out = append(out, k+": "+strings.TrimSpace(v)+" -> "+strings.TrimSpace(s[k]))
		}
	}
	return strings.Join(out, "; ")
}

// The preset refuses a workspace that is no project, unless the caller
// names what is writable.
func TestAgentRefusesRootAndHome(t *testing.T) {
	a := newAgentEnv(t)
	for _, dir := range []string{"/", a.home, filepath.Dir(a.home), "/usr"} {
		r := runClean(t, dir, a.env, "--preset", "agent", "--", "/bin/true")
		if r.code != 125 || !strings.Contains(r.stderr, "--preset agent: the current directory "+dir) || !strings.Contains(r.stderr, "--rw DIR") {
			t.Errorf("from %s: %v", dir, r)
		}
	}
	proj := filepath.Join(a.home, "proj")
	writeFile(t, filepath.Join(proj, "x"), "x")
	r := runClean(t, a.home, a.env, "--preset", "agent", "--rw", proj, "--", "/bin/sh", "-c", "echo y > proj/x; echo n > home-file")
	if readFile(t, filepath.Join(proj, "x")) != "y\n" {
		t.Errorf("an explicit --rw from the home directory: %v", r)
	}
	if _, err := os.Stat(filepath.Join(a.home, "home-file")); err == nil {
		t.Error("the home directory was made writable")
	}
}

// Secrets leave the environment by default, whether HOME is set or not;
// the report names them, never their values; --keep-env and an explicit
// --env let one through; credential files are hidden under HOME and the
// password database's home.
func TestAgentSecrets(t *testing.T) {
	need(t)
	a := newAgentEnv(t)
	ws := workspace(t)
	writeFile(t, filepath.Join(a.home, ".git-credentials"), "https://u:hunter2@example.com\n")
	writeFile(t, filepath.Join(a.home, ".config", "gh", "hosts.yml"), "oauth_token: hunter2\n")
	secrets := []string{"GITHUB_TOKEN=hunter2", "AWS_SECRET_ACCESS_KEY=hunter2", "OPENAI_API_KEY=hunter2", "ANTHROPIC_API_KEY=hunter2",
		"NPM_TOKEN=hunter2", "SSH_AUTH_SOCK=/run/hunter2", "AWS_REGION=eu-west-1"}
	script := `env; cat ` + a.home + `/.git-credentials ` + a.home + `/.config/gh/hosts.yml 2>&1; echo "region=$AWS_REGION"`
	r := runClean(t, ws, append(a.env, secrets...), "--preset", "agent", "--report", "-", "--", "/bin/sh", "-c", script)
	if r.code != 0 {
		t.Fatal(r)
	}
	if strings.Contains(r.stdout, "hunter2") {
		t.Errorf("a secret reached the payload:\n%s", r.stdout)
	}
	if !strings.Contains(r.stdout, "region=eu-west-1") || !strings.Contains(r.stdout, "NSRUN_SANDBOX=full") {
		t.Errorf("what must stay: %s", r.stdout)
	}
	rep := stderrReport(t, r.stderr)
	for _, name := range []string{"GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "NPM_TOKEN", "SSH_AUTH_SOCK"} {
		if !contains(rep.Environment.Removed, name) {
			t.Errorf("the report does not name %s: %v", name, rep.Environment.Removed)
		}
	}
	if strings.Contains(r.stderr, "hunter2") {
		t.Error("the report holds a value")
	}
	r = runClean(t, ws, append(a.env, secrets...), "--preset", "agent", "--keep-env", "GITHUB_*", "--env", "NPM_TOKEN=mine", "--",
		"/bin/sh", "-c", `echo "$GITHUB_TOKEN $NPM_TOKEN ${OPENAI_API_KEY-gone}"`)
	expect(t, "kept and set", r.stdout, "hunter2 mine gone")
	// Without HOME the password database's home is the one hidden.
	u, _ := userHome(t)
	probe := filepath.Join(u, ".vault-token")
	if _, err := os.Lstat(probe); os.IsNotExist(err) {
		writeFile(t, probe, "hunter2")
		t.Cleanup(func() { os.Remove(probe) })
	}
	r = runClean(t, ws, append([]string{"XDG_STATE_HOME=" + a.state}, secrets...), "--preset", "agent", "--", "/bin/sh", "-c", "env; cat "+probe)
	if r.code != 0 || strings.Contains(r.stdout, "hunter2") {
		t.Errorf("HOME unset: %v", r)
	}
}

// The persistent HOME keeps a cache file from one run to the next, belongs
// to nsrun (not the caller's home), and gives way to --env HOME=...;
// --home private starts empty each run.
func TestAgentHome(t *testing.T) {
	need(t)
	a := newAgentEnv(t)
	ws := workspace(t)
	r := a.run(t, ws, []string{"--report", "-"}, `echo "$HOME $GOCACHE $XDG_CACHE_HOME"; mkdir -p "$XDG_CACHE_HOME" && echo warm > "$XDG_CACHE_HOME/probe"`)
	home := filepath.Join(a.state, "nsrun", "agent", "home")
	if r.code != 0 || !strings.HasPrefix(r.stdout, home+" "+home+"/.cache/go-build "+home+"/.cache") {
		t.Fatalf("first run: %v", r)
	}
	if rep := stderrReport(t, r.stderr); rep.Environment.Home != home {
		t.Errorf("report home %q", rep.Environment.Home)
	}
	if fi, err := os.Stat(home); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("the home directory: %v %v", fi, err)
	}
	r = a.run(t, ws, nil, `cat "$XDG_CACHE_HOME/probe"`)
	expect(t, "second run", r.stdout, "warm")
	if _, err := os.Stat(filepath.Join(a.home, ".cache", "probe")); err == nil {
		t.Error("the caller's own cache was written")
	}
	mine := workspace(t)
	r = a.run(t, ws, []string{"--env", "HOME=" + mine, "--env", "GOCACHE=" + mine + "/gc"}, `echo "$HOME $GOCACHE $XDG_CACHE_HOME"`)
	expect(t, "--env HOME wins", r.stdout, mine+" "+mine+"/gc "+mine+"/.cache")
	r = a.run(t, ws, []string{"--home", "private"}, `echo $HOME; ls -A $HOME | wc -l`)
	expect(t, "--home private", r.stdout, "/tmp/home\n0")
	// nsrun keeps a home only in a real directory of the caller's.
	link := filepath.Join(workspace(t), "link")
	os.Symlink(mine, link)
	r = a.run(t, ws, []string{"--home", link}, "true")
	if r.code != 125 || !strings.Contains(r.stderr, "is a symlink") {
		t.Errorf("a home that is a symlink: %v", r)
	}
}

// The report says full for the host network alone; a second --preset or
// --policy is refused; --env before --clear-env is cleared.
func TestSmallTruths(t *testing.T) {
	need(t)
	ws := workspace(t)
	r := run(t, ws, "--net", "host", "--report", "-", "--", "/bin/true")
	if rep := stderrReport(t, r.stderr); rep.Enforcement != "full" || rep.Namespaces.Net {
		t.Errorf("--net host: %s", r.stderr)
	}
	for _, args := range [][]string{{"--preset", "agent", "--preset", "build"}, {"--policy", "a.json", "--policy", "b.json"}} {
		r := run(t, ws, append(args, "--", "/bin/true")...)
		if r.code != 125 || !strings.Contains(r.stderr, "given twice") {
			t.Errorf("%v: %v", args, r)
		}
	}
	r = runEnv(t, ws, []string{"KEEP_ME=1"}, "--env", "A=1", "--clear-env", "--env", "B=2", "--keep-env", "KEEP_*", "--", "/usr/bin/env")
	expect(t, "in command-line order", r.stdout, "KEEP_ME=1\nB=2\nNSRUN_SANDBOX=full\nPWD=/")
	r = run(t, ws, "--isolation", "landlock", "--rw", ws, "--", "/bin/sh", "-c", "echo $NSRUN_SANDBOX")
	expect(t, "the marker in Landlock mode", r.stdout, "landlock")
}

type reportJSON struct {
	Enforcement string `json:"enforcement"`
	Namespaces  struct {
		Net bool `json:"net"`
	} `json:"namespaces"`
	Environment struct {
		Removed []string `json:"removed"`
		Home    string   `json:"home"`
	} `json:"environment"`
}

// stderrReport decodes the JSON report nsrun wrote to stderr (--report -).
func stderrReport(t *testing.T, stderr string) reportJSON {
	t.Helper()
	var rep reportJSON
	i := strings.Index(stderr, "{\n")
	if i < 0 {
		t.Fatalf("no report in %q", stderr)
	}
	if err := json.NewDecoder(strings.NewReader(stderr[i:])).Decode(&rep); err != nil {
		t.Fatalf("report: %v in %q", err, stderr)
	}
	return rep
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// userHome is the password database's home of the caller.
func userHome(t *testing.T) (string, error) {
	out, err := exec.Command("getent", "passwd", itoa(os.Getuid())).Output()
	if err != nil {
		t.Skip("no password database entry:", err)
	}
	f := strings.Split(strings.TrimSpace(string(out)), ":")
	if len(f) < 6 {
		t.Skip("odd password database entry")
	}
	return f[5], nil
}
