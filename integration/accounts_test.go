//go:build linux

package integration

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// With --uid and --gid the payload has entries in /etc/passwd and
// /etc/group, read-only copies with a line added: whoami, id -un and
// Python's getpass name it. The host's files are unchanged.
func TestAccountsForTheIDsInside(t *testing.T) {
	before := readFile(t, "/etc/passwd") + readFile(t, "/etc/group")
	ws := workspace(t)
	rep := filepath.Join(ws, "r.json")
	r := runEnv(t, "/", []string{"USER=", "LOGNAME="}, "--report", rep, "--uid", "1234", "--gid", "2345", "--", "/bin/sh", "-c",
		`whoami; id -un; id -gn; python3 -c 'import getpass, os; print(getpass.getuser(), os.path.expanduser("~"))'; `+
			helperBin+` write /etc/passwd; grep -c . /etc/passwd`)
	lines := strings.Split(r.stdout, "\n")
	if r.code != 0 || len(lines) != 6 || lines[0] == "" || lines[0] != lines[1] || lines[2] == "" || !strings.HasPrefix(lines[3], lines[0]+" ") || lines[4] != "EROFS" {
		t.Fatalf("the payload has no name: %v", r)
	}
	if got := strings.Count(readFile(t, "/etc/passwd"), "\n") + 1; lines[5] != itoa(got) {
		t.Errorf("/etc/passwd inside has %s lines, the host's %d: one is added", lines[5], got-1)
	}
	if readFile(t, "/etc/passwd")+readFile(t, "/etc/group") != before {
		t.Error("the host's /etc/passwd or /etc/group changed")
	}
	var got struct{ Filesystem struct{ Files []string } }
	decodeReport(t, rep, &got)
	if strings.Join(got.Filesystem.Files, " ") != "/etc/passwd /etc/group" {
		t.Errorf("report files: %v", got.Filesystem.Files)
	}
	// An id the host's files have keeps its own entry, and nothing is
	// added.
	r = run(t, "/", "--uid", "0", "--gid", "0", "--report", rep, "--", "/bin/sh", "-c", "whoami; id -gn")
	expect(t, "uid 0", r.stdout, "root\nroot")
	got.Filesystem.Files = nil
	decodeReport(t, rep, &got)
	if len(got.Filesystem.Files) != 0 {
		t.Errorf("files made for ids the host has: %v", got.Filesystem.Files)
	}
}

// ssh finds the payload in the password database: with --uid it would
// refuse to run ("No user exists for uid").
func TestSSHRunsUnderAnotherUID(t *testing.T) {
	if _, err := exec.LookPath("ssh"); err != nil {
		t.Skip("no ssh client:", err)
	}
	r := run(t, "/", "--uid", "4321", "--", "ssh", "-G", "nsrun.invalid")
	if r.code != 0 || !strings.Contains(r.stdout, "hostname nsrun.invalid") {
		t.Errorf("ssh -G under --uid 4321: %v", r)
	}
}

// A named socket is shown by an explicit rule and reported; without one it
// stays out of reach. ssh-agent's socket lives under /tmp, which the
// sandbox replaces.
func TestNamedSocketByRule(t *testing.T) {
	dir := t.TempDir() // under the host's /tmp: hidden inside by default
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(dir, "plain.sock")
	ln, err := net.Listen("unix", plain)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	expect(t, "without a rule", helper(t, nil, "dial-unix", plain), "ENOENT")
	expect(t, "--ro-bind SOCK DEST", helper(t, []string{"--ro-bind", plain, "/run/agent"}, "dial-unix", "/run/agent"), "ok")
	expect(t, "--ro SOCK", helper(t, []string{"--ro", plain}, "dial-unix", plain), "ok")

	sock := filepath.Join(dir, "agent.sock")
	if _, err := exec.LookPath("ssh-agent"); err == nil {
		agent := exec.Command("ssh-agent", "-D", "-a", sock)
		if err := agent.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { agent.Process.Kill(); agent.Wait() }()
		for i := 0; i < 200; i++ {
			if _, err := os.Stat(sock); err == nil {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		env := []string{"SSH_AUTH_SOCK=" + sock}
		// ssh-add -l: 1 when the agent answers with no keys, 2 when it
		// cannot reach one.
		r := runEnv(t, "/", env, "--", "ssh-add", "-l")
		if r.code != 2 {
			t.Errorf("the agent's socket reached without a rule: %v", r)
		}
		rep := filepath.Join(workspace(t), "r.json")
		r = runEnv(t, "/", env, "--rw", sock, "--report", rep, "--", "ssh-add", "-l")
		if r.code != 1 || !strings.Contains(r.stdout, "no identities") {
			t.Errorf("ssh-add -l with --rw SSH_AUTH_SOCK: %v", r)
		}
		var got struct{ Filesystem struct{ Sockets []string } }
		decodeReport(t, rep, &got)
		if strings.Join(got.Filesystem.Sockets, " ") != sock {
			t.Errorf("report sockets: %v", got.Filesystem.Sockets)
		}
	} else if os.Getenv("NSRUN_INTEGRATION") == "1" && os.Getenv("NSRUN_SHAPE") == "" {
		// The container image has no ssh; a host the suite sets up does.
		t.Errorf("no ssh-agent (scripts/setup.sh installs openssh-client): %v", err)
	}
}
