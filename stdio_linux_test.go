package nsrun

import (
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
