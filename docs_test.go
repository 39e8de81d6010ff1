package nsrun_test

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// The README is a newcomer's page; the reference lives in docs/. These
// tests keep it short and keep every relative link, and every #anchor, in
// README.md and docs/*.md pointing at something that exists, so moving a
// section cannot leave a dangling reference behind.

const readmeMaxLines = 220

func TestReadmeIsShort(t *testing.T) {
	needSourceTree(t)
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "\n"); n > readmeMaxLines {
		t.Errorf("README.md has %d lines, more than %d: move the reference into docs/", n, readmeMaxLines)
	}
}

// TestReadmeLinksEveryDoc: the README's documentation index names every
// page in docs/.
func TestReadmeLinksEveryDoc(t *testing.T) {
	needSourceTree(t)
	pages, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	linked := map[string]bool{}
	for _, l := range mdLinks(t, "README.md") {
		linked[filepath.Clean(strings.SplitN(l.target, "#", 2)[0])] = true
	}
	for _, p := range pages {
		if !linked[p] {
			t.Errorf("README.md does not link %s", p)
		}
	}
}

func TestDocLinksResolve(t *testing.T) {
	needSourceTree(t)
	files, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, "README.md")
	anchors := map[string]map[string]bool{} // markdown file -> its heading anchors
	for _, f := range files {
		for _, l := range mdLinks(t, f) {
			path, frag, _ := strings.Cut(l.target, "#")
			target := f
			if path != "" {
				target = filepath.Join(filepath.Dir(f), path)
				if _, err := os.Stat(target); err != nil {
					t.Errorf("%s:%d: link to %s: %v", f, l.line, l.target, err)
					continue
				}
			}
			if frag == "" || !strings.HasSuffix(target, ".md") {
				continue
			}
			if anchors[target] == nil {
				anchors[target] = headingAnchors(t, target)
			}
			if !anchors[target][frag] {
				t.Errorf("%s:%d: link to %s: %s has no heading with anchor #%s", f, l.line, l.target, target, frag)
			}
		}
	}
}

type mdLink struct {
	target string
	line   int
}

var (
	inlineCode = regexp.MustCompile("`[^`]*`")
	linkRE     = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	schemeRE   = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
)

// mdLinks returns the relative link targets of a markdown file, outside
// code blocks and code spans.
func mdLinks(t *testing.T, file string) []mdLink {
	t.Helper()
	var links []mdLink
	eachLine(t, file, func(n int, line string) {
		for _, m := range linkRE.FindAllStringSubmatch(inlineCode.ReplaceAllString(line, ""), -1) {
			if !schemeRE.MatchString(m[1]) {
				links = append(links, mdLink{m[1], n})
			}
		}
	})
	return links
}

// headingAnchors returns the anchors GitHub gives the headings of a
// markdown file.
func headingAnchors(t *testing.T, file string) map[string]bool {
	t.Helper()
	seen := map[string]int{}
	anchors := map[string]bool{}
	eachLine(t, file, func(_ int, line string) {
		text, ok := headingText(line)
		if !ok {
			return
		}
		a := anchor(text)
		if n := seen[a]; n > 0 {
			anchors[fmt.Sprintf("%s-%d", a, n)] = true
		} else {
			anchors[a] = true
		}
		seen[a]++
	})
	return anchors
}

// eachLine calls fn with each line of file that is outside a fenced code
// block.
func eachLine(t *testing.T, file string, fn func(n int, line string)) {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	fence := false
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fence = !fence
			continue
		}
		if !fence {
			fn(n, line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("read %s: %v", file, err)
	}
}

// headingText returns the text of an ATX heading line.
func headingText(line string) (string, bool) {
	rest := strings.TrimLeft(line, "#")
	level := len(line) - len(rest)
	if level == 0 || level > 6 || !strings.HasPrefix(rest, " ") {
		return "", false
	}
	return strings.TrimSpace(strings.TrimRight(strings.TrimSpace(rest), "#")), true
}

// anchor is GitHub's anchor for a heading: lower case, punctuation
// dropped but for hyphens and underscores, each space a hyphen.
func anchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

func TestAnchor(t *testing.T) {
	for _, c := range []struct{ heading, want string }{
		{"Usage", "usage"},
		{"Places the tree lacks", "places-the-tree-lacks"},
		{"/etc/passwd and /etc/group", "etcpasswd-and-etcgroup"},
		{"What the sandbox refused (`--trace-denials`)", "what-the-sandbox-refused---trace-denials"},
		{"What it does not protect against (yet)", "what-it-does-not-protect-against-yet"},
		{"Landlock alone (`--isolation landlock`)", "landlock-alone---isolation-landlock"},
		{"What `procMount: Unmasked` costs", "what-procmount-unmasked-costs"},
		{"Many sandboxes per node (graders, CI fleets)", "many-sandboxes-per-node-graders-ci-fleets"},
	} {
		if got := anchor(c.heading); got != c.want {
			t.Errorf("anchor(%q) = %q, want %q", c.heading, got, c.want)
		}
	}
}

func TestHeadingText(t *testing.T) {
	for _, c := range []struct {
		line, want string
		ok         bool
	}{
		{"## Usage", "Usage", true},
		{"### /sys ###", "/sys", true},
		{"#nospace", "", false},
		{"plain text", "", false},
		{"####### seven", "", false},
	} {
		got, ok := headingText(c.line)
		if got != c.want || ok != c.ok {
			t.Errorf("headingText(%q) = %q, %v; want %q, %v", c.line, got, ok, c.want, c.ok)
		}
	}
}
