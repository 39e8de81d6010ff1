package nsrun_test

import (
	"io"
	"os"
	"testing"

	"github.com/nsrun/nsrun"
)

// The examples that need a sandbox have no Output line, so that go test
// passes where none can be built; here they run where one can, and their
// output is checked.
func TestExamplesRun(t *testing.T) {
	if p := nsrun.ProbeHost(); !p.UserNamespaces.OK {
		if os.Getenv("NSRUN_INTEGRATION") == "1" {
			t.Fatal(p.UserNamespaces.Detail)
		}
		t.Skip(p.UserNamespaces.Detail)
	}
	for _, ex := range []struct {
		name string
		run  func()
		want string
	}{
		{"Example", Example, "output \"42\\n\", exit 0, enforcement full, in the job: true\ncounted by rusage: under a second of CPU true, some memory true, some time true\n"},
		{"ExampleCmd_StdoutPipe", ExampleCmd_StdoutPipe, "SHOUT\n"},
		{"ExampleCommandContext", ExampleCommandContext, "saving\ndeadline: true cancelled: true\ninterrupted: true\n"},
		{"Example_concurrent", Example_concurrent, "[0 1 2 3]\n"},
	} {
		if got := stdoutOf(t, ex.run); got != ex.want {
			t.Errorf("%s printed %q, want %q", ex.name, got, ex.want)
		}
	}
}

// stdoutOf runs f with os.Stdout going to a pipe, and returns what it wrote.
func stdoutOf(t *testing.T, f func()) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stdout
	os.Stdout = w
	got := make(chan string)
	go func() {
		b, _ := io.ReadAll(r)
		got <- string(b)
	}()
	f()
	os.Stdout = saved
	w.Close()
	return <-got
}
