//go:build linux

package integration

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// containerSuite is the script that picks, for the container suite's
// unmasked shape, the tests whose outcome a container can change.
const containerSuite = "../scripts/container-suite.sh"

// shapeVar names the container shape the suite runs in, where it does.
const shapeVar = "NSRUN_SHAPE"

// containerHelpers answer from the container the suite runs in (or tell
// whether it runs in one): a test that reaches one of them, directly or
// through other functions of this package, depends on the container. The
// environment variable NSRUN_SHAPE (shapeVar) counts wherever it is named.
var containerHelpers = []string{"probeHost", "runAnywhere", "shimsFileSystem", "refusedOutside", "sessionLimits", "cgroupsNamed"}

// TestContainerSuiteListsContainerDependentTests: the container suite runs
// in its unmasked shape only the tests scripts/container-suite.sh lists; a
// test that starts to depend on the container must not be left out
// silently, and each word of the list must still name a test.
func TestContainerSuiteListsContainerDependentTests(t *testing.T) {
	script, err := os.ReadFile(containerSuite)
	if os.IsNotExist(err) {
		t.Skip("not run from the module's source tree")
	} else if err != nil {
		t.Fatal(err)
	}
	words := unmaskedWords(t, string(script))
	list, err := regexp.Compile("^(" + strings.Join(words, "|") + ")$")
	if err != nil {
		t.Fatalf("%s: the list is no regexp: %v", containerSuite, err)
	}
	tests, reaches := containerReach(t)
	for _, name := range tests {
		if why := reaches[name]; why != "" && !list.MatchString(name) {
			t.Errorf("%s reaches %s, which answers from the container, but %s does not list it for the unmasked shape", name, why, containerSuite)
		}
	}
	for _, w := range words {
		re := regexp.MustCompile("^(" + w + ")$")
		found := false
		for _, name := range tests {
			found = found || re.MatchString(name)
		}
		if !found {
			t.Errorf("%s lists %q, which names no test of this package", containerSuite, w)
		}
	}
}

// unmaskedWords are the names and patterns between unmasked_list's
// here-document markers, comments removed.
func unmaskedWords(t *testing.T, script string) []string {
	t.Helper()
	_, body, ok := strings.Cut(script, "cat <<'TESTS'\n")
	if ok {
		body, _, ok = strings.Cut(body, "\nTESTS\n")
	}
	if !ok {
		t.Fatalf("%s: no unmasked_list here-document (cat <<'TESTS' ... TESTS)", containerSuite)
	}
	var words []string
	for _, line := range strings.Split(body, "\n") {
		line, _, _ = strings.Cut(line, "#")
		words = append(words, strings.Fields(line)...)
	}
	if len(words) == 0 {
		t.Fatalf("%s: the unmasked list is empty", containerSuite)
	}
	return words
}

// containerReach parses this package's test files and returns its test
// functions (TestMain aside), sorted, and for each that reaches a container
// helper the first chain found ("f > g > probeHost").
func containerReach(t *testing.T) ([]string, map[string]string) {
	t.Helper()
	files, err := filepath.Glob("*_test.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no test files here: %v", err)
	}
	fset := token.NewFileSet()
	// Functions and methods by name (a method and a function of one name
	// are taken together: it can only add a test to the must-list).
	calls := map[string]map[string]bool{}
	direct := map[string]string{}
	for _, f := range files {
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			name := fd.Name.Name
			if calls[name] == nil {
				calls[name] = map[string]bool{}
			}
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.Ident:
					calls[name][n.Name] = true
				case *ast.BasicLit:
					if s, err := strconv.Unquote(n.Value); err == nil && strings.Contains(s, shapeVar) {
						direct[name] = shapeVar
					}
				}
				return true
			})
		}
	}
	for _, h := range containerHelpers {
		if calls[h] == nil {
			t.Fatalf("no function %s here: update containerHelpers", h)
		}
		direct[h] = h
	}
	// why[f] is f's chain to a helper; computed to a fixed point.
	why := map[string]string{}
	for f, w := range direct {
		why[f] = w
	}
	for changed := true; changed; {
		changed = false
		for f, callees := range calls {
			if why[f] != "" {
				continue
			}
			for c := range callees {
				if c != f && why[c] != "" && calls[c] != nil {
					why[f] = c
					if why[c] != c {
						why[f] += " > " + why[c]
					}
					changed = true
					break
				}
			}
		}
	}
	var tests []string
	for f := range calls {
		if strings.HasPrefix(f, "Test") && f != "TestMain" {
			tests = append(tests, f)
		}
	}
	sort.Strings(tests)
	return tests, why
}
