package launch

import (
	"bytes"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/nsrun/nsrun/mounts"
)

func TestSpecRoundTrip(t *testing.T) {
	plan, err := mounts.Make(mounts.Input{Rules: []mounts.Rule{{Path: "/w", Access: mounts.ReadWrite, Dir: true, ID: mounts.Identity{Dev: 1, Ino: 2}}}})
	if err != nil {
		t.Fatal(err)
	}
	in := &Spec{Plan: plan, Args: []string{"sh", "-c", "x"}, Env: []string{"A=1"}, Dir: "/w", Loopback: true}
	b, err := EncodeSpec(in)
	if err != nil {
		t.Fatal(err)
	}
	out, err := ReadSpec(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(in, out) {
		t.Errorf("got %+v, want %+v", out, in)
	}
	if _, err := ReadSpec(strings.NewReader("\xff\xff\xff\xff")); err == nil || !strings.Contains(err.Error(), "limit") {
		t.Errorf("an oversized spec must be refused, got %v", err)
	}
	if _, err := ReadSpec(strings.NewReader("\x00\x00\x00\x05{")); err == nil {
		t.Error("a truncated spec must be refused")
	}
}

func TestStatusFrames(t *testing.T) {
	var buf bytes.Buffer
	for _, m := range []Msg{{Kind: MsgStarted}, {Kind: MsgExit, Code: 137, Signal: 9}, {Kind: MsgError, Code: 125, Msg: "mount /x: EPERM"}} {
		b, err := Frame(&m, "status")
		if err != nil {
			t.Fatal(err)
		}
		buf.Write(b)
	}
	var got []Msg
	for {
		var m Msg
		err := ReadFrame(&buf, &m, "status")
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, m)
	}
	if len(got) != 3 || got[1].Signal != 9 || got[2].Msg != "mount /x: EPERM" {
		t.Errorf("got %+v", got)
	}
}

func TestInitCodeForExecFailures(t *testing.T) {
	if _, err := lookPath("definitely-not-a-command-nsrun", []string{"PATH=/usr/bin:/bin"}); execCode(err) != ExitNotFound {
		t.Errorf("missing command: %v", err)
	}
	if _, err := lookPath("/etc/hostname", nil); execCode(err) != ExitNotExecutable {
		t.Errorf("not executable: %v", err)
	}
	if p, err := lookPath("sh", []string{"PATH=/nonexistent:/bin"}); err != nil || p != "/bin/sh" {
		t.Errorf("lookPath sh = %q, %v", p, err)
	}
}

// Whatever arrives on the spec pipe, the init gets a spec or an error.
func FuzzReadSpec(f *testing.F) {
	plan, err := mounts.Make(mounts.Input{Rules: []mounts.Rule{{Path: "/w", Access: mounts.ReadWrite, Dir: true, ID: mounts.Identity{Dev: 1, Ino: 2}}}})
	if err != nil {
		f.Fatal(err)
	}
	b, err := EncodeSpec(&Spec{Plan: plan, Args: []string{"sh"}, Rlimits: []Rlimit{{Name: "core"}}})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := ReadSpec(bytes.NewReader(b))
		if (s == nil) == (err == nil) {
			t.Fatalf("spec %v with error %v", s, err)
		}
	})
}
