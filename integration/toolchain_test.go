//go:build linux

package integration

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestCompilerBuildsAndRunsInWorkspace(t *testing.T) {
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc is not installed")
	}
	ws := workspace(t)
	writeFile(t, filepath.Join(ws, "hello.c"), "#include <stdio.h>\nint main(void){puts(\"hello from the sandbox\");return 0;}\n")
	r := run(t, ws, "--rw", ws, "--", "/bin/sh", "-c", "gcc -o hello hello.c && ./hello")
	if r.code != 0 {
		t.Fatal(r)
	}
	expect(t, "program output", r.stdout, "hello from the sandbox")
	if _, err := os.Stat(filepath.Join(ws, "hello")); err != nil {
		t.Errorf("the binary is not in the workspace on the host: %v", err)
	}
}

func TestGitCommitInWorkspace(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	ws := workspace(t)
	writeFile(t, filepath.Join(ws, "file.txt"), "content\n")
	script := "git init -q && git add file.txt && git -c user.name=t -c user.email=t@example.com commit -qm first && git log --format=%s"
	r := run(t, ws, "--rw", ws, "--env", "HOME="+ws, "--", "/bin/sh", "-c", script)
	if r.code != 0 {
		t.Fatal(r)
	}
	expect(t, "git log", r.stdout, "first")
	out, err := exec.Command("git", "-C", ws, "-c", "safe.directory=*", "log", "--format=%s").CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "first" {
		t.Errorf("the commit is not in the host repository: %v %s", err, out)
	}
}
