package gitguard

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseConfig(t *testing.T) {
	in := "\xef\xbb\xbf# comment\n" +
		"[core]\n" +
		"\trepositoryformatversion = 0\n" +
		"\tbare\n" +
		"\tFSMonitor = \"/ws/hook\" ; trailing comment\n" +
		"[Remote \"Origin\"] url = x\n" +
		"[alias]\n" +
		"  st = !git   status\t-s  # each blank inside is one space\n" +
		"  q = \"a # not a comment\"  \n" +
		"  e = tab\\there\\\\ \\\"q\\\" \\n\n" +
		"  long = one \\\n  two\n" +
		"[includeIf \"gitdir:~/w/\"]\n" +
		"\tpath = ../x\n" +
		"[old.Sub]\n" +
		"\tk=v\r\n" +
		"[s \"a\\\"b\\\\c\"]\n" +
		"\tk=\n"
	got, err := ParseConfig([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, e := range got {
		keys = append(keys, e.Key()+"="+e.Value+map[bool]string{true: " (no value)"}[e.NoValue])
	}
	want := []string{
		"core.repositoryformatversion=0",
		"core.bare= (no value)",
		"core.fsmonitor=/ws/hook",
		"remote.Origin.url=x",
		"alias.st=!git   status -s",
		"alias.q=a # not a comment",
		"alias.e=tab\there\\ \"q\" \n",
		"alias.long=one   two",
		"includeif.gitdir:~/w/.path=../x",
		"old.sub.k=v",
		"s.a\"b\\c.k=",
	}
	if !reflect.DeepEqual(keys, want) {
		t.Errorf("got\n%q\nwant\n%q", keys, want)
	}
	if got[2].Line != 5 {
		t.Errorf("line of core.fsmonitor: %d", got[2].Line)
	}
}

func TestParseConfigRefuses(t *testing.T) {
	for in, want := range map[string]string{
		"k = v\n":                     "line 1: variable outside a section",
		"[core\n":                     "unterminated section header",
		"[co re]\n":                   "a subsection must be quoted",
		"[core \"x]\n":                "unterminated subsection",
		"[core \"x\" ]\n":             "subsection not followed by ]",
		"[a.b \"x\"]\n":               "bad section name",
		"[]\n":                        "empty section name",
		"[c*]\n":                      "bad character",
		"[core]\n\tk = \"open\n":      "line 2: unterminated quote",
		"[core]\n\tk = \\q\n":         "bad escape",
		"[core]\n\tk v\n":             "bad character 'v' after the name k",
		"[core]\n\t9k = v\n":          "unexpected '9'",
		"[core]\n\tk = a\x00b\n":      "NUL byte",
		"[core]\n\tk = v\\":           "backslash at the end",
		"[core]\n\t[sub \"x\"\n":      "line 2: subsection not followed by ]",
		"[core]\n\tname = x\n\t= y\n": "line 3: unexpected '='",
	} {
		_, err := ParseConfig([]byte(in))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want %q", in, err, want)
		}
	}
}

func TestBool(t *testing.T) {
	for v, want := range map[string][2]bool{"true": {true, true}, "Yes": {true, true}, "off": {false, true}, "0": {false, true},
		"": {false, true}, "/usr/bin/hook": {false, false}, "watchman": {false, false}} {
		b, ok := Bool(Entry{Value: v})
		if [2]bool{b, ok} != want {
			t.Errorf("Bool(%q) = %v, %v", v, b, ok)
		}
	}
	if b, ok := Bool(Entry{NoValue: true}); !b || !ok {
		t.Error("a key alone is true")
	}
}

// FuzzParseConfig: any input is entries or an error naming a line, never
// a panic; every entry has a section and a name.
func FuzzParseConfig(f *testing.F) {
	f.Add([]byte("[core]\n\thooksPath = .husky\n[alias \"x\"]\n\tk = \"a\\\"b\" ; c\n"))
	f.Add([]byte("[a.b]k\n[c] d = e \\\n f\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		es, err := ParseConfig(data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "line ") {
				t.Fatalf("error without a line: %v", err)
			}
			return
		}
		for _, e := range es {
			if e.Section == "" || e.Name == "" || e.Line < 1 {
				t.Fatalf("bad entry %+v", e)
			}
		}
	})
}
