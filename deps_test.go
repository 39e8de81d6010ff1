package nsrun_test

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// allowedImports is the layering of nsrun's packages, for every GOOS: the
// nsrun packages each one may import (docs/ARCHITECTURE.md says why). A
// package that is not here, or an import that is not listed, fails
// TestImportRules: a new edge is a decision, made here.
//
// The rules it holds: nothing imports the root but cmd/nsrun and the
// benchmarks; a kernel mechanism imports no other mechanism; the leaf
// packages import nothing of nsrun; internal/launch (the child side)
// imports neither the root nor the parent side.
var allowedImports = map[string][]string{
	// The library's face: on Linux it composes internal/plan and
	// internal/sandbox, and reaches no mechanism but cgroup (its errors
	// raised into LimitError) and mounts (the Access vocabulary).
	".": {"darwin", "windows", "reexec", "netproxy", "mounts", "cgroup",
		"internal/gitguard", "internal/paths", "internal/changes", "internal/plan", "internal/sandbox", "internal/errs", "internal/environ", "internal/session", "internal/front", "internal/watch", "internal/values", "internal/outbuf", "internal/policyfile"},
	"cmd/nsrun": {".", "ns", "netproxy", "mounts", "internal/bwrap", "internal/session", "pty", "internal/front", "internal/errs"},

	// cgroup: the fork helper forks the init into its cgroup (cgroup.ForkExec).
	"internal/launch": {"mounts", "landlock", "seccomp", "ns", "netproxy", "pty", "reexec", "cgroup", "internal/supervise", "internal/wire", "internal/paths", "internal/fdpass", "internal/errs"},
	// The Linux planning: a lowered policy in, what the sandbox is made of
	// out; it never imports the parent side that runs the sandbox.
	"internal/plan": {"internal/launch", "internal/front", "mounts", "landlock", "seccomp", "netproxy", "cgroup", "ptrace",
		"internal/absent", "internal/changes", "internal/gitguard", "internal/supervise", "internal/paths", "internal/mountinfo", "internal/errs", "internal/environ"},
	// The Linux parent side: the running sandbox as its parent holds it; it
	// imports neither the root nor internal/plan, which the root composes.
	"internal/sandbox": {"internal/launch", "internal/rawinit", "reexec", "ns", "cgroup", "pty", "ptrace", "netproxy", "seccomp", "landlock",
		"internal/absent", "internal/fdpass", "internal/procfs", "internal/changes", "internal/supervise", "internal/errs"},
	"internal/supervise": {"landlock", "seccomp", "internal/procfs"},
	// Sessions' parent side: the channel to a session's init and the
	// control socket; the root and the CLI compose it.
	"internal/session": {"internal/launch", "internal/sandbox", "internal/fdpass", "internal/wire", "pty", "internal/procfs"},
	// The runtime-free init (prototype, issue 27): the spec in, a program
	// of raw system calls out.
	"internal/rawinit": {"internal/launch", "internal/rawinit/nofile", "mounts", "landlock", "seccomp", "ns", "reexec"},
	// Imports nothing at all: it must be initialized before syscall.
	"internal/rawinit/nofile": {},

	// Kernel mechanisms: only the leaf helpers below.
	"cgroup":   {"internal/mountinfo"},
	"mounts":   {"internal/mountinfo", "internal/paths"},
	"netproxy": {"internal/fdpass"},
	"ptrace":   {"internal/procfs"},
	"pty":      {},
	"ns":       {},
	"landlock": {},
	"seccomp":  {},
	"darwin":   {},
	"windows":  {},
	"reexec":   {},

	// The readers of option values and policy files, on every OS: a
	// published port and an added host obey netproxy's rules, a file's
	// environment patterns internal/environ's.
	"internal/values":     {"netproxy"},
	"internal/policyfile": {"internal/values", "internal/environ", "netproxy"},

	// Leaves.
	"internal/absent":                 {},
	"internal/bwrap":                  {},
	"internal/changes":                {},
	"internal/environ":                {},
	"internal/errs":                   {},
	"internal/fdpass":                 {},
	"internal/front":                  {},
	"internal/gitguard":               {},
	"internal/mountinfo":              {},
	"internal/outbuf":                 {},
	"internal/paths":                  {},
	"internal/procfs":                 {},
	"internal/wire":                   {},
	"internal/watch":                  {},
	"seccomp/internal/gensyscalls":    {},
	"bench/floor":                     {},
	"bench/launch":                    {"."},
	"bench/netserve":                  {},
	"bench/noop":                      {},
	"bench/ptycat":                    {"pty"},
	"bench/report":                    {},
	"bench/sidebyside":                {},
	"integration":                     {},
	"integration/helper":              {},
	"integration/helper/landlockexec": {},
	"integration/profiles":            {},
}

// TestImportRules holds every nsrun package's imports of nsrun packages,
// as `go list` sees them for linux, darwin and windows, to allowedImports.
func TestImportRules(t *testing.T) {
	needSourceTree(t)
	if _, err := exec.LookPath("go"); err != nil {
		if os.Getenv("CI") != "" || os.Getenv("NSRUN_INTEGRATION") == "1" {
			t.Fatal("the go command is needed to list the imports")
		}
		t.Skip("no go command")
	}
	const module = "github.com/nsrun/nsrun"
	short := func(p string) string {
		if p == module {
			return "."
		}
		return strings.TrimPrefix(p, module+"/")
	}
	for _, goos := range []string{"linux", "darwin", "windows"} {
		cmd := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...")
		cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH=amd64")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("GOOS=%s go list: %v", goos, err)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			f := strings.Fields(line)
			pkg := short(f[0])
			allowed, known := allowedImports[pkg]
			if !known {
				t.Errorf("GOOS=%s: package %s is not in allowedImports: add it with the nsrun packages it may import", goos, pkg)
				continue
			}
			for _, imp := range f[1:] {
				if imp != module && !strings.HasPrefix(imp, module+"/") {
					continue
				}
				if !slices.Contains(allowed, short(imp)) {
					t.Errorf("GOOS=%s: %s imports %s, which allowedImports does not let it", goos, pkg, short(imp))
				}
			}
		}
	}
}

// needSourceTree skips a test that reads the module's files when the test
// binary runs elsewhere: scripts/test.sh also runs a copy of it, as
// another user, from a directory without the sources (the run in the
// source tree checks them).
func needSourceTree(t *testing.T) {
	t.Helper()
	if _, err := os.Stat("go.mod"); err != nil {
		t.Skip("not run from the module's source tree")
	}
}
