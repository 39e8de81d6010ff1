package nsrun

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nsrun/nsrun/landlock"
)

// running reports whether a process whose argv[0] is name runs.
func running(name string) bool {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if arg0, _, _ := strings.Cut(string(b), "\x00"); err == nil && arg0 == name {
			return true
		}
	}
	return false
}

func goneByName(t *testing.T, name string) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if !running(name) {
			return
		}
	}
	t.Errorf("%s still runs after the Landlock-only sandbox ended", name)
}

// Signal(SIGKILL) and a cancelled context end a Landlock-only sandbox
// whole, a process that left its session and group included: the
// supervisor stage is asked to, rather than killed alone.
func TestLibraryLandlockOnlyKillEndsEverything(t *testing.T) {
	if _, _, err := landlock.ABI(); err != nil {
		t.Skip("no Landlock:", err)
	}
	marker := "nsrun-lib-ll-" + strconv.Itoa(os.Getpid())
	script := func(m string) string {
		return `(setsid /bin/bash -c 'exec -a ` + m + ` /bin/sleep 300' </dev/null >/dev/null 2>&1 &); echo ready; exec /bin/sleep 300`
	}
	for _, how := range []string{"signal", "context"} {
		ctx, cancel := context.WithCancel(context.Background())
		m := marker + "-" + how
		cmd := CommandContext(ctx, &Policy{Isolation: IsolationLandlock}, "/bin/sh", "-c", script(m))
		out, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stdout = w
		err = cmd.Start()
		w.Close()
		if err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 6)
		if _, err := out.Read(buf); err != nil || string(buf) != "ready\n" {
			t.Fatalf("%s: %q %v", how, buf, err)
		}
		for deadline := time.Now().Add(5 * time.Second); !running(m); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				cmd.Signal(os.Kill)
				cmd.Wait()
				t.Fatalf("%s: the straggler %s never ran", how, m)
			}
		}
		if how == "signal" {
			if err := cmd.Signal(os.Kill); err != nil {
				t.Fatal(err)
			}
		} else {
			cancel()
		}
		err = cmd.Wait()
		cancel()
		out.Close()
		var ee *ExitError
		if !errors.As(err, &ee) || (how == "signal" && ee.Code != 137) || (how == "context" && !errors.Is(err, context.Canceled)) {
			t.Errorf("%s: %v", how, err)
		}
		goneByName(t, m)
	}
}
