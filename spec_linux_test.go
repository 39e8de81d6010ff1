package nsrun

import (
	"bytes"
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
	in := &initSpec{Plan: plan, Args: []string{"sh", "-c", "x"}, Env: []string{"A=1"}, Dir: "/w", Loopback: true}
	b, err := encodeSpec(in)
	if err != nil {
		t.Fatal(err)
	}
	out, err := readSpec(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(in, out) {
		t.Errorf("got %+v, want %+v", out, in)
	}
	if _, err := readSpec(strings.NewReader("\xff\xff\xff\xff")); err == nil || !strings.Contains(err.Error(), "limit") {
		t.Errorf("an oversized spec must be refused, got %v", err)
	}
	if _, err := readSpec(strings.NewReader("\x00\x00\x00\x05{")); err == nil {
		t.Error("a truncated spec must be refused")
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
