//go:build linux

package integration

import (
	"archive/zip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeModCache writes a Go module cache holding example.test/hello
// v1.0.0 as the go command downloads it (cache/download), and returns it.
func fakeModCache(t *testing.T) string {
	t.Helper()
	// Not under /tmp, which is the sandbox's own.
	dir, err := os.MkdirTemp("/var/tmp", "nsrun-modcache-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(dir, "pkg", "mod")
	v := filepath.Join(cache, "cache", "download", "example.test", "hello", "@v")
	writeFile(t, filepath.Join(v, "list"), "v1.0.0\n")
	writeFile(t, filepath.Join(v, "v1.0.0.info"), `{"Version":"v1.0.0","Time":"2026-01-01T00:00:00Z"}`)
	mod := "module example.test/hello\n\ngo 1.21\n"
	writeFile(t, filepath.Join(v, "v1.0.0.mod"), mod)
	f, err := os.Create(filepath.Join(v, "v1.0.0.zip"))
	if err != nil {
		t.Fatal(err)
	}
	z := zip.NewWriter(f)
	for name, content := range map[string]string{"go.mod": mod, "hello.go": "package hello\n\nfunc Hi() string { return \"hi from the host's module cache\" }\n"} {
		w, err := z.Create("example.test/hello@v1.0.0/" + name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(content))
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return cache
}

// TestAgentGoBuildFromHostModuleCache: under the agent preset, with the
// network off and nsrun's own home (its module cache empty), go build
// finds the project's modules in the host's module cache; what it
// extracts goes to nsrun's home, never to the host's cache.
func TestAgentGoBuildFromHostModuleCache(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not installed")
	}
	cache := fakeModCache(t)
	ws := workspace(t)
	writeFile(t, filepath.Join(ws, "go.mod"), "module example.test/app\n\ngo 1.21\n\nrequire example.test/hello v1.0.0\n")
	writeFile(t, filepath.Join(ws, "main.go"), "package main\n\nimport \"example.test/hello\"\n\nfunc main() { println(hello.Hi()) }\n")
	state := workspace(t)
	env := []string{"GOMODCACHE=" + cache, "XDG_STATE_HOME=" + state, "GOFLAGS=-mod=mod -modcacherw", "GOSUMDB=off", "GOTOOLCHAIN=local"}
	// -modcacherw: the test's cleanup can remove what go extracted. A cold build cache: compiling the runtime can take a while on a
	// loaded machine.
	r := runFor(t, 5*time.Minute, ws, os.Environ(), env, "--preset", "agent", "--", goBin, "run", ".")
	if r.code != 0 || !strings.HasSuffix(r.stderr, "\nhi from the host's module cache") || strings.Contains(r.stderr, "nsrun:") {
		t.Fatalf("go run under the agent preset: %v", r)
	}
	if _, err := os.Stat(filepath.Join(cache, "example.test", "hello@v1.0.0")); err == nil {
		t.Error("the module was extracted into the host's module cache")
	}
	home := filepath.Join(state, "nsrun", "agent", "home")
	if _, err := os.Stat(filepath.Join(home, "go", "pkg", "mod", "example.test", "hello@v1.0.0", "hello.go")); err != nil {
		t.Errorf("the module is not in nsrun's home: %v", err)
	}
}
