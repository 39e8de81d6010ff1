package main

import (
	"strings"
	"testing"
)

// FuzzParseArgs: any command line either parses into options with a
// command, or is refused with a one-line message; it never panics.
func FuzzParseArgs(f *testing.F) {
	for _, seed := range []string{
		"--rw\x00ws\x00--\x00bash",
		"--ro\x00/x\x00--deny\x00/y\x00--env\x00A=B\x00--timeout\x0010s\x00cmd",
		"--allow-connect\x00udp:53-60\x00--rlimit\x00nofile=1:2\x00x",
		"--uid\x004294967295\x00x",
		"--\x00--help",
		"-v\x00-q\x00--net\x00host\x00--tmpfs-size\x0064M\x00x",
		"--bind\x00src\x00/w\x00--symlink\x00t\x00/l\x00--dev\x00/dev/kvm\x00--overlay\x00o\x00x",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, line string) {
		args := strings.Split(line, "\x00")
		o, err := parseArgs(args)
		if err != nil {
			if msg := oneLine(err.Error()); strings.ContainsAny(msg, "\n\r") {
				t.Fatalf("a multi-line message: %q", msg)
			}
			return
		}
		if !o.help && !o.printProf && (len(o.args) == 0 || o.args[0] == "") {
			t.Fatalf("parsed without a command: %q", args)
		}
		for _, r := range o.policy.Rules {
			if r.Path == "" {
				t.Fatalf("a rule without a path: %q", args)
			}
		}
	})
}
