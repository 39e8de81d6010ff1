//go:build linux

package integration

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// Red-team pass of 2026-12-02: attacks by a payload on what is new since
// the last pass (sessions, bubblewrap mode, the shims layer, git). A test
// that passes is a promise that held; one that fails is a hole, described
// where it fails.

// fakeHolder is a stand-in for a session's holder, run by a payload: it
// binds SOCK at the sessions directory's name of a session, then answers
// every client with code 0, after writing to the stdout the client passed
// it and logging the request (argv, --env values) to LOG.
const fakeHolder = `
import socket, os, sys, json, array
path, log = sys.argv[1], sys.argv[2]
try: os.unlink(path)
except FileNotFoundError: pass
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.bind(path); s.listen(4)
print("ready", flush=True)
while True:
    c, _ = s.accept()
    msg, anc, flags, addr = c.recvmsg(1 << 20, socket.CMSG_SPACE(3 * 4))
    fds = []
    for lvl, typ, data in anc:
        if lvl == socket.SOL_SOCKET and typ == socket.SCM_RIGHTS:
            a = array.array('i'); a.frombytes(data[:len(data) - len(data) % 4]); fds += list(a)
    with open(log, 'a') as f: f.write(msg.decode() + "\n")
    if len(fds) >= 2: os.write(fds[1], b"served by the payload\n")
    for fd in fds: os.close(fd)
    c.send(json.dumps({"code": 0}).encode())
    c.close()
`

func needPython(t *testing.T) string {
	t.Helper()
	const py = "/usr/bin/python3"
	if _, err := os.Stat(py); err != nil {
		t.Skipf("the stand-in holder is a Python script: %v", err)
	}
	return py
}

// A payload that may write the sessions directory (here a one-shot run
// given the user's runtime directory, as a program that needs the
// Wayland, PulseAudio or D-Bus sockets there would be) replaces a running
// session's control socket with one of its own, to be sent the user's
// next `nsrun exec NAME` (argv, the --env values, the caller's standard
// streams), to write what it likes to the caller's stdout and decide the
// exit status, and to answer `session stop NAME` with 0 while the session
// runs on.
//
// The client (session.Dial) checks who serves the socket as the holder
// checks its clients: SO_PEERCRED's uid, a pid in the client's PID
// namespace, no more confined than the client. Before that check the
// payload got the request and the streams, and this test failed.
func TestRedteamSessionSocketStandIn(t *testing.T) {
	py := needPython(t)
	for _, isolation := range []string{"full", "landlock"} {
		t.Run(isolation, func(t *testing.T) {
			e := newSessionEnv(t)
			e.start("target")
			holder, _ := e.info("target")
			t.Cleanup(func() { _ = syscall.Kill(holder, syscall.SIGKILL) })
			expect(t, "exec before the attack", e.exec("target", "/bin/echo", "from-session").stdout, "from-session")

			ws := workspace(t)
			writeFile(t, filepath.Join(ws, "fake.py"), fakeHolder)
			log := filepath.Join(ws, "log")
			fake := startReady(t, "--isolation", isolation, "--rw", e.runtime, "--rw", ws, "--", py, filepath.Join(ws, "fake.py"), filepath.Join(e.dir, "target.sock"), log)
			t.Cleanup(func() { _ = fake.Process.Kill(); _ = fake.Wait() })

			// The client must refuse a socket its session's holder does not
			// serve: nothing sent, a one-line reason, exit 125.
			r := e.nsrun("exec", "target", "--env", "TOKEN=secret", "--", "/bin/echo", "from-session")
			if r.code != 125 || r.stdout != "" || !strings.Contains(r.stderr, "target.sock is not served by a holder of this user's") {
				t.Errorf("nsrun exec target -- /bin/echo from-session, with a payload's socket at target.sock: want a refusal (125), got %v", r)
			}
			if b, err := os.ReadFile(log); err == nil && strings.TrimSpace(string(b)) != "" {
				t.Errorf("the payload received the exec request: %s", strings.TrimSpace(string(b)))
			}
			r = e.nsrun("session", "stop", "target")
			if r.code == 0 && syscall.Kill(holder, 0) == nil {
				t.Errorf("session stop target answered 0 and the session's holder %d still runs: %v", holder, r)
			}
		})
	}
}

// A session given the runtime directory writable cannot move aside the
// sessions directory that is denied to it (to put one of its own in its
// place, and serve other sessions' names): the denied directory is a mount
// point inside, and renaming its parent is EBUSY. The other session is
// still reached.
func TestRedteamSessionDirMovedAside(t *testing.T) {
	e := newSessionEnv(t)
	e.start("other")
	e.start("loose", "--rw", e.runtime)
	nsrunDir := filepath.Dir(e.dir)
	r := e.exec("loose", "/bin/sh", "-c", "mv "+nsrunDir+" "+e.runtime+"/moved; echo mv=$?; mkdir -p "+e.dir+"/x 2>/dev/null; echo mkdir=$?")
	expect(t, "moving the sessions directory's parent, then making one", r.stdout, "mv=1\nmkdir=1")
	if _, err := os.Stat(filepath.Join(e.runtime, "moved")); err == nil {
		t.Errorf("the sessions directory's parent was moved")
	}
	expect(t, "the other session after the attempt", e.exec("other", "/bin/echo", "ok").stdout, "ok")
}

// The agent run from a subdirectory of a repository (a package of a
// monorepo, `cd frontend && nsrun --preset agent -- agent`): the
// workspace is that subdirectory, the repository's git directory lies
// above it, read-only. But what the repository's configuration names for
// git to run may lie inside the workspace: husky installed in a
// subdirectory sets core.hooksPath to frontend/.husky; an include.path or
// a core.fsmonitor program may name a file there too. The payload writes
// it, and the user's next git commit or git status on the host runs it.
//
// It was a hole (both modes, no warning): the protection read the
// configuration only of repositories found in the workspace. Now it also
// reads the enclosing repository's (the one host git finds walking up
// from the workspace's top) as it reads the others, and holds what that
// names inside the writable paths read-only or absent; more variants in
// gitenclose_test.go.
func TestRedteamEnclosingRepositoryConfigNamesTheWorkspace(t *testing.T) {
	need(t)
	a := newAgentEnv(t)
	cases := []struct {
		name   string
		config []string // git config KEY VALUE in the enclosing repository
		script string   // the payload, in the workspace (proj/sub)
		host   []string // host git, in proj/sub
	}{
		{"hooksPath", []string{"core.hooksPath", "sub/.husky"},
			hook + `mkhook .husky/pre-commit`, []string{"commit", "-q", "--allow-empty", "-m", "host"}},
		{"include", []string{"include.path", "../sub/.gitconfig.local"},
			`printf '[core]\n\tfsmonitor = touch MARKER; echo\n' > .gitconfig.local`, []string{"status"}},
		{"fsmonitor", []string{"core.fsmonitor", "sub/tools/fsmonitor.sh"},
			hook + `mkhook tools/fsmonitor.sh`, []string{"status"}},
	}
	for _, iso := range gitModes {
		for _, tc := range cases {
			t.Run(iso.name+"/"+tc.name, func(t *testing.T) {
				proj := filepath.Join(workspace(t), "proj")
				ws := filepath.Join(proj, "sub")
				a.newRepo(t, proj)
				if err := os.MkdirAll(filepath.Join(ws, ".husky"), 0o755); err != nil {
					t.Fatal(err)
				}
				if tc.name == "fsmonitor" {
					writeFile(t, filepath.Join(ws, "tools", "fsmonitor.sh"), "#!/bin/sh\n")
					if err := os.Chmod(filepath.Join(ws, "tools", "fsmonitor.sh"), 0o755); err != nil {
						t.Fatal(err)
					}
				}
				a.mustGit(t, proj, append([]string{"config"}, tc.config...)...)
				marker := filepath.Join(workspace(t), "ran")
				r := a.run(t, ws, iso.args, strings.ReplaceAll(tc.script, "MARKER", marker)+"\ntrue")
				out, err := a.hostGit(t, ws, tc.host...)
				if _, serr := os.Stat(marker); serr == nil {
					t.Errorf("host git %v in %s ran the payload's program (%v)\n%s\npayload: %v", tc.host, ws, err, out, r)
				}
			})
		}
	}
}
