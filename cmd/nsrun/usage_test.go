package main

import (
	"bytes"
	"flag"
	"os"
	"reflect"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "write docs/OPTIONS.md from the option table")

const optionsDoc = "../../docs/OPTIONS.md"

// TestOptionsDoc: docs/OPTIONS.md is what the option table makes, so the
// reference and the flags cannot drift apart. go generate ./cmd/nsrun
// writes it.
func TestOptionsDoc(t *testing.T) {
	var want bytes.Buffer
	writeOptionsDoc(&want)
	if *update {
		if err := os.WriteFile(optionsDoc, want.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(optionsDoc)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(got, want.Bytes()) {
		return
	}
	gotLines, wantLines := strings.Split(string(got), "\n"), strings.Split(want.String(), "\n")
	for i := range min(len(gotLines), len(wantLines)) {
		if gotLines[i] != wantLines[i] {
			t.Fatalf("docs/OPTIONS.md is not what the option table makes (run go generate ./cmd/nsrun); line %d:\nhave %q\nwant %q",
				i+1, gotLines[i], wantLines[i])
		}
	}
	t.Fatalf("docs/OPTIONS.md has %d lines, the option table makes %d (run go generate ./cmd/nsrun)", len(gotLines), len(wantLines))
}

// An argument each option takes, to check what the table says of it.
var optionSamples = map[string][]string{
	"rw": {"a"}, "ro": {"a"}, "deny": {"a"}, "tmpfs": {"a"}, "root": {"a"}, "bind": {"a", "/b"}, "ro-bind": {"a", "/b"},
	"overlay": {"a"}, "keep-changes": {"a"}, "dir": {"/a"}, "symlink": {"a", "/b"}, "file": {"a", "/b"}, "dev": {"/dev/kvm"},
	"dev-bind": {"/dev/kvm", "/dev/k"}, "dev-block": {"/dev/loop0"}, "sys": {"host"},
	"chdir": {"a"}, "env": {"A=1"}, "unset-env": {"A"}, "keep-env": {"A*"}, "clear-env": nil, "home": {"private"},
	"hostname": {"h"}, "uid": {"1"}, "gid": {"1"}, "timeout": {"1s"}, "idle-timeout": {"1s"}, "kill-after": {"1s"}, "tty": {"never"},
	"rlimit": {"nofile=10"}, "tmpfs-size": {"1M"}, "memory": {"1M"}, "pids": {"10"}, "cpu": {"0.5"},
	"net": {"host"}, "allow-connect": {"443"}, "allow-bind": {"80"}, "allow-host": {"a.example"},
	"allow-private-hosts": nil, "add-host": {"a.example=10.0.0.1"}, "publish": {"8080:80"}, "host-port": {"5432"},
	"isolation": {"landlock"}, "landlock": {"off"}, "seccomp": {"off"}, "allow-userns": nil, "proc": {"host"},
	"allow-host-unix-sockets": nil, "strict": nil, "trace-denials": nil,
	"policy": {"p.json"}, "preset": {"agent"}, "report": {"-"}, "v": nil, "q": nil, "print-profile": nil, "help": nil,
}

// TestOptionTable: each option's entry is well formed, and says truly
// whether it may be repeated: given twice, a repeatable option adds a
// second time, any other is the same as given once, or, if it may be
// given once, refused.
func TestOptionTable(t *testing.T) {
	seen := map[string]bool{"version": true} // run's
	for _, s := range optionSections {
		for i := range s.options {
			opt := &s.options[i]
			for _, name := range []string{opt.name, opt.alias} {
				if seen[name] || strings.ContainsAny(name, "= ") || strings.HasPrefix(name, "-") {
					t.Errorf("option name %q: taken or malformed", name)
				}
				seen[name] = name != ""
			}
			if opt.help == "" || strings.ContainsAny(opt.help, "\n|") || strings.HasSuffix(opt.help, ".") ||
				strings.Count(opt.help, "`")%2 != 0 || opt.many && opt.once {
				t.Errorf("--%s: help %q: want one line, no | nor final period, code quotes in pairs", opt.name, opt.help)
			}
			sample, ok := optionSamples[opt.name]
			if !ok || len(sample) != len(strings.Fields(opt.arg)) {
				t.Errorf("--%s: no sample argument of the form %q", opt.name, opt.arg)
				continue
			}
			once := append([]string{"--" + opt.name}, sample...)
			o1, err := parseOptions(once)
			if err != nil {
				t.Errorf("%q: %v", once, err)
				continue
			}
			o2, err := parseOptions(append(once, once...))
			switch {
			case opt.once:
				if err == nil || !strings.Contains(err.Error(), "given twice") {
					t.Errorf("--%s twice: %v, want refused", opt.name, err)
				}
			case err != nil:
				t.Errorf("--%s twice: %v", opt.name, err)
			case reflect.DeepEqual(o1, o2) == opt.many:
				t.Errorf("--%s: given twice adds one more: %v; the table says %v", opt.name, !opt.many, opt.many)
			}
		}
	}
}

// TestUsage: the help fits 80 columns and lists every option.
func TestUsage(t *testing.T) {
	var b strings.Builder
	writeUsage(&b)
	for _, line := range strings.Split(b.String(), "\n") {
		if len(line) > helpWidth {
			t.Errorf("a line of the help is longer than %d: %q", helpWidth, line)
		}
	}
	for name := range optionSamples {
		if !strings.Contains(b.String(), " "+dashes(name)+" ") && !strings.Contains(b.String(), " "+dashes(name)+"\n") {
			t.Errorf("the help lacks %s", dashes(name))
		}
	}
}
