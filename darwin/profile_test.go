package darwin

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden profiles")

var cases = map[string]Input{
	"workspace": {ReadRoots: []string{"/"}, TempDirs: []string{"/var/folders/xy/T", "/tmp"},
		Rules: []Rule{{Path: "/Users/me/ws", Access: ReadWrite}}},
	"workspace-ro-git": {ReadRoots: []string{"/"},
		Rules: []Rule{{Path: "/Users/me/ws/.git", Access: ReadOnly}, {Path: "/Users/me/ws", Access: ReadWrite}}},
	"deny-inside-rw": {ReadRoots: []string{"/"},
		Rules: []Rule{{Path: "/Users/me/ws", Access: ReadWrite}, {Path: "/Users/me/ws/secrets", Access: Deny}, {Path: "/Users/me/ws/secrets/public", Access: ReadOnly}}},
	"net-host": {ReadRoots: []string{"/"}, HostNet: true, Rules: []Rule{{Path: "/Users/me/ws", Access: ReadWrite}}},
	"odd-paths": {ReadRoots: []string{"/"},
		Rules: []Rule{{Path: "/Users/me/my ws", Access: ReadWrite}, {Path: `/Users/me/q"uote) (deny default`, Access: ReadWrite},
			{Path: "/Users/me/ünïcødé", Access: Deny}}},
	"symlinked-tmp": {ReadRoots: []string{"/"}, TempDirs: []string{"/tmp"}, Rules: []Rule{{Path: "/tmp/build", Access: ReadWrite}}},
}

func render(p Profile) string {
	var b strings.Builder
	b.WriteString(p.Text)
	for _, prm := range p.Params {
		fmt.Fprintf(&b, ";; -D %s=%s\n", prm.Name, prm.Value)
	}
	return b.String()
}

func TestGolden(t *testing.T) {
	for name, in := range cases {
		got := render(Generate(in))
		file := filepath.Join("testdata", name+".sb")
		if *update {
			if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(file)
		if err != nil {
			t.Fatalf("%v (run go test ./darwin -update)", err)
		}
		if got != string(want) {
			t.Errorf("%s: profile changed:\n%s", name, got)
		}
	}
}

func TestProperties(t *testing.T) {
	for name, in := range cases {
		p := Generate(in)
		lines := strings.Split(p.Text, "\n")
		params := map[string]string{}
		for _, prm := range p.Params {
			params[prm.Name] = prm.Value
			if strings.Contains(p.Text, prm.Value) && prm.Value != "/" {
				t.Errorf("%s: path %q appears in the profile text", name, prm.Value)
			}
		}
		find := func(value string) string {
			for n, v := range params {
				if v == value {
					return n
				}
			}
			return ""
		}
		lineOf := func(pred func(string) bool) int {
			for i, l := range lines {
				if pred(l) {
					return i
				}
			}
			return -1
		}
		for _, r := range in.Rules {
			real := RealPath(r.Path)
			prm := find(real)
			if prm == "" {
				t.Fatalf("%s: no parameter for %s", name, real)
			}
			ref := fmt.Sprintf("(subpath (param %q))", prm)
			switch r.Access {
			case ReadWrite:
				if lineOf(func(l string) bool {
					return strings.Contains(l, "file-write*") && strings.Contains(l, "process-exec") && strings.HasPrefix(l, "(allow") && strings.Contains(l, ref)
				}) < 0 {
					t.Errorf("%s: writable %s lacks file-write* and process-exec", name, real)
				}
			case Deny:
				deny := lineOf(func(l string) bool { return strings.HasPrefix(l, "(deny file-read*") && strings.Contains(l, ref) })
				for _, g := range in.Rules {
					gp := RealPath(g.Path)
					if g.Access != Deny && len(gp) < len(real) && strings.HasPrefix(real, gp+"/") {
						grant := lineOf(func(l string) bool {
							return strings.HasPrefix(l, "(allow") && strings.Contains(l, fmt.Sprintf("(subpath (param %q))", find(gp)))
						})
						if deny < grant {
							t.Errorf("%s: the deny of %s comes before the grant of %s", name, real, gp)
						}
					}
				}
			}
		}
		if err := checkSexp(p.Text); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestRealPath(t *testing.T) {
	for in, want := range map[string]string{"/tmp": "/private/tmp", "/tmp/x": "/private/tmp/x", "/var/folders/a": "/private/var/folders/a",
		"/etc/hosts": "/private/etc/hosts", "/tmpfoo": "/tmpfoo", "/Users/me": "/Users/me", "/private/tmp": "/private/tmp"} {
		if got := RealPath(in); got != want {
			t.Errorf("RealPath(%s) = %s, want %s", in, got, want)
		}
	}
}

// checkSexp parses the profile as S-expressions: balanced parentheses,
// strings closed, every form a known operation with known filters.
func checkSexp(text string) error {
	known := map[string]bool{"version": true, "allow": true, "deny": true}
	ops := map[string]bool{"default": true, "process-fork": true, "process-exec": true, "signal": true, "sysctl-read": true,
		"ipc-posix-shm": true, "ipc-posix-sem": true, "pseudo-tty": true, "file-read*": true, "file-write*": true, "file-ioctl": true,
		"file-read-metadata": true, "file-write-unlink": true, "mach-lookup": true, "network*": true, "system-socket": true}
	filters := map[string]bool{"literal": true, "subpath": true, "regex": true, "param": true, "global-name": true, "target": true}
	var stack []int
	var tokens []string
	cur := strings.Builder{}
	flush := func() {
		if cur.Len() > 0 {
			tokens = append(tokens, cur.String())
			cur.Reset()
		}
	}
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c == '"':
			j := i + 1
			for ; j < len(text) && text[j] != '"'; j++ {
				if text[j] == '\\' {
					j++
				}
			}
			if j >= len(text) {
				return fmt.Errorf("unclosed string at %d", i)
			}
			flush()
			tokens = append(tokens, text[i:j+1])
			i = j
		case c == '(':
			flush()
			stack = append(stack, len(tokens))
			tokens = append(tokens, "(")
		case c == ')':
			flush()
			if len(stack) == 0 {
				return fmt.Errorf("unbalanced ) at %d", i)
			}
			open := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			form := tokens[open+1:]
			if len(form) == 0 {
				return fmt.Errorf("empty form at %d", i)
			}
			head := form[0]
			switch {
			case len(stack) == 0 && !known[head]:
				return fmt.Errorf("unknown top-level form %q", head)
			case len(stack) == 1 && !known[head] && !filters[head]:
				return fmt.Errorf("unknown filter %q", head)
			case len(stack) == 0 && (head == "allow" || head == "deny"):
				for _, tok := range form[1:] {
					if tok != "(" && tok != "<form>" && !ops[tok] && !strings.HasPrefix(tok, "\"") && !strings.HasPrefix(tok, "#") {
						return fmt.Errorf("unknown operation %q", tok)
					}
				}
			}
			tokens = append(tokens[:open], "<form>")
		case c == ' ' || c == '\n' || c == '\t':
			flush()
		case c == '#' && i+1 < len(text) && text[i+1] == '"':
			flush()
			j := i + 2
			for ; j < len(text) && text[j] != '"'; j++ {
			}
			tokens = append(tokens, text[i:j+1])
			i = j
		default:
			cur.WriteByte(c)
		}
	}
	if len(stack) != 0 {
		return fmt.Errorf("%d unclosed (", len(stack))
	}
	return nil
}

func TestCheckSexpCatchesBadProfiles(t *testing.T) {
	for _, bad := range []string{"(version 1", "(allow file-read* (subpath \"x))", "(allow frobnicate)", "(allow file-read* (bogus \"x\"))", "(oops)", ")"} {
		if checkSexp(bad) == nil {
			t.Errorf("%q passed", bad)
		}
	}
}
