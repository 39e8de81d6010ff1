package nsrun

import (
	"io"
	"strings"
	"sync"
	"testing"
)

// funcWriter is a writer of a func type: two values of it in an interface
// cannot be compared with ==, which panics at run time.
type funcWriter func([]byte) (int, error)

func (f funcWriter) Write(p []byte) (int, error) { return f(p) }

// TestStartWithUncomparableStdoutAndStderr gives Stdout and Stderr two
// writers of one uncomparable type: Start must run the payload (each
// stream to its own writer), not panic comparing them.
func TestStartWithUncomparableStdoutAndStderr(t *testing.T) {
	needSandbox(t)
	var mu sync.Mutex
	var out, errOut strings.Builder
	collect := func(b *strings.Builder) funcWriter {
		return func(p []byte) (int, error) {
			mu.Lock()
			defer mu.Unlock()
			return b.Write(p)
		}
	}
	cmd := Command(nil, "/bin/sh", "-c", "echo out; echo err >&2")
	cmd.Stdout, cmd.Stderr = collect(&out), collect(&errOut)
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("Start panicked: %v", r)
			}
		}()
		if err := cmd.Run(); err != nil {
			t.Fatal(err)
		}
	}()
	if out.String() != "out\n" || errOut.String() != "err\n" {
		t.Errorf("stdout %q, stderr %q", out.String(), errOut.String())
	}
}

// TestSameWriter tells one writer given twice from two writers, whatever
// their dynamic types, without panicking on uncomparable ones.
func TestSameWriter(t *testing.T) {
	var b strings.Builder
	f := funcWriter(b.Write)
	type sliceWriter struct {
		funcWriter
		s []int
	}
	type ifaceWriter struct {
		io.Writer
	}
	cases := []struct {
		name string
		a, b io.Writer
		want bool
	}{
		{"one pointer twice", &b, &b, true},
		{"two pointers", &b, &strings.Builder{}, false},
		{"nil stderr", &b, nil, false},
		{"both nil", nil, nil, false},
		{"func values", f, f, false},
		{"structs holding a slice", sliceWriter{f, nil}, sliceWriter{f, nil}, false},
		{"structs holding a comparable writer", ifaceWriter{&b}, ifaceWriter{&b}, true},
		{"structs holding an uncomparable writer", ifaceWriter{f}, ifaceWriter{f}, false},
		{"structs holding writers of two types", ifaceWriter{&b}, ifaceWriter{f}, false},
		{"different types", &b, f, false},
	}
	for _, c := range cases {
		if got := sameWriter(c.a, c.b); got != c.want {
			t.Errorf("%s: sameWriter = %v, want %v", c.name, got, c.want)
		}
	}
}
