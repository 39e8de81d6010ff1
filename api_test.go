package nsrun

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

var updateAPI = flag.Bool("update", false, "rewrite api/*.txt from go doc")

// apiRefresh is the command that rewrites the snapshots after an intended
// change of the exported API.
const apiRefresh = "go test -run TestAPI -update ."

// TestAPI keeps the exported API as go doc shows it, per GOOS, equal to
// api/GOOS.txt, so that moving code between packages cannot change it
// unnoticed.
func TestAPI(t *testing.T) {
	if _, err := os.Stat("go.mod"); err != nil {
		// scripts/test.sh also runs a copy of this test binary, as another
		// user, from a directory without the sources.
		t.Skip("not run from the module's source tree: go doc has nothing to read")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		if os.Getenv("CI") != "" || os.Getenv("NSRUN_INTEGRATION") == "1" {
			t.Fatalf("the go tool is needed to check the API: %v", err)
		}
		t.Skipf("the go tool is needed to check the API: %v", err)
	}
	for _, goos := range []string{"linux", "darwin", "windows"} {
		t.Run(goos, func(t *testing.T) {
			t.Parallel()
			got := apiDoc(t, goTool, goos)
			file := filepath.Join("api", goos+".txt")
			if *updateAPI {
				if err := os.WriteFile(file, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v (to create it: %s)", err, apiRefresh)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("the exported API for GOOS=%s differs from %s:\n%s\nIf the change is intended: %s",
					goos, file, apiDiff(string(want), string(got)), apiRefresh)
			}
		})
	}
}

// apiDoc is `go doc -all .` for goos. GOARCH and CGO_ENABLED are fixed so
// that the snapshot does not depend on the machine that takes it.
func apiDoc(t *testing.T, goTool, goos string) []byte {
	t.Helper()
	cmd := exec.Command(goTool, "doc", "-all", ".")
	cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH=amd64", "CGO_ENABLED=0", "GOFLAGS=")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("GOOS=%s go doc -all .: %v\n%s", goos, err, stderr.Bytes())
	}
	return out
}

// apiDiff is a line diff of want and got: each changed run of lines with
// up to two lines of context, marked - and +, under want's line number;
// the output is capped.
func apiDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	// lcs[i][j] is the length of the longest common subsequence of w[i:]
	// and g[j:]; the snapshots are ~1,400 lines, so this is a few MB.
	lcs := make([][]int32, len(w)+1)
	for i := range lcs {
		lcs[i] = make([]int32, len(g)+1)
	}
	for i := len(w) - 1; i >= 0; i-- {
		for j := len(g) - 1; j >= 0; j-- {
			if w[i] == g[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	type line struct {
		op   byte // ' ', '-' or '+'
		text string
		at   int // want's line number
	}
	var ops []line
	i, j := 0, 0
	for i < len(w) || j < len(g) {
		switch {
		case i < len(w) && j < len(g) && w[i] == g[j]:
			ops = append(ops, line{' ', w[i], i + 1})
			i, j = i+1, j+1
		case i < len(w) && (j == len(g) || lcs[i+1][j] >= lcs[i][j+1]):
			ops = append(ops, line{'-', w[i], i + 1})
			i++
		default:
			ops = append(ops, line{'+', g[j], i + 1})
			j++
		}
	}
	const context, maxLines = 2, 60
	var b strings.Builder
	shown, last := 0, -1
	for k, op := range ops {
		near := false
		for d := -context; d <= context && !near; d++ {
			near = k+d >= 0 && k+d < len(ops) && ops[k+d].op != ' '
		}
		if !near {
			continue
		}
		if shown == maxLines {
			b.WriteString("...\n")
			break
		}
		if k != last+1 {
			fmt.Fprintf(&b, "@@ line %d @@\n", op.at)
		}
		fmt.Fprintf(&b, "%c %s\n", op.op, op.text)
		shown, last = shown+1, k
	}
	return b.String()
}
