package nsrun

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
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

// Every field of a spec the parent really builds, Landlock rules and BPF
// included, must reach the init as it was.
func TestPreparedSpecRoundTrip(t *testing.T) {
	ws := t.TempDir()
	size := uint64(1 << 20)
	cmd := Command(&Policy{
		Rules:     []Rule{{Path: ws, Access: ReadWrite}, {Path: filepath.Join(ws, "ro"), Access: ReadOnly}},
		Hostname:  "box",
		TmpfsSize: size,
		Rlimits:   []Rlimit{{Name: "nofile", Soft: 64, Hard: 128}},
	}, "sh", "-c", "true")
	if err := os.Mkdir(filepath.Join(ws, "ro"), 0o755); err != nil {
		t.Fatal(err)
	}
	prep, err := cmd.prepare()
	if err != nil {
		t.Fatal(err)
	}
	prep.spec.Verbose = true
	prep.spec.TTY = &ttySpec{Streams: 5, Foreground: true, Mode: []byte{1, 2, 3}, Rows: 24, Cols: 80}
	if prep.spec.Landlock == nil || len(prep.spec.Seccomp) == 0 || len(prep.spec.Rlimits) == 0 {
		if os.Getenv("NSRUN_INTEGRATION") == "1" {
			t.Fatalf("no Landlock or seccomp layer in the spec: %+v", prep.report)
		}
		t.Skipf("this host gives no Landlock or seccomp layer to carry: %+v", prep.report)
	}
	b, err := encodeSpec(&prep.spec)
	if err != nil {
		t.Fatal(err)
	}
	got, err := readSpec(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(*got, prep.spec) {
		t.Errorf("got %+v\nwant %+v", *got, prep.spec)
	}
}

func TestStatusFrames(t *testing.T) {
	var buf bytes.Buffer
	for _, m := range []initMsg{{Kind: msgStarted}, {Kind: msgExit, Code: 137, Signal: 9}, {Kind: msgError, Code: 125, Msg: "mount /x: EPERM"}} {
		b, err := frame(&m, "status")
		if err != nil {
			t.Fatal(err)
		}
		buf.Write(b)
	}
	var got []initMsg
	for {
		var m initMsg
		err := readFrame(&buf, &m, "status")
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
	b, err := encodeSpec(&initSpec{Plan: plan, Args: []string{"sh"}, Rlimits: []Rlimit{{Name: "core"}}})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := readSpec(bytes.NewReader(b))
		if (s == nil) == (err == nil) {
			t.Fatalf("spec %v with error %v", s, err)
		}
	})
}
