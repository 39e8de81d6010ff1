package nsrun

import (
	"bytes"
	"io"
	"os"
	"strings"
	"testing"
)

// The Landlock-only stage's two children, the runtime-free one (the
// default) and the Go one (NSRUN_INIT=go), on the same commands: the
// payload gets its streams and the ExtraFiles at 3, 4, ... (a nil one
// leaves its number closed) and no other descriptor, the same limits,
// and Landlock refuses the same write.
func TestLibraryLandlockChildrenAgree(t *testing.T) {
	needSandbox(t)
	ws := t.TempDir()
	results := map[string]string{}
	for _, init := range []string{"go", "raw"} {
		t.Setenv("NSRUN_INIT", init)
		r3, w3, _ := os.Pipe()
		r5, w5, _ := os.Pipe()
		var out, log bytes.Buffer
		script := listFDs + "; echo three >&3; echo five >&5; ulimit -n; touch /etc/nsrun-child-probe 2>/dev/null; echo touch $?; touch " + ws + "/x; echo ws $?"
		cmd := Command(&Policy{Isolation: IsolationLandlock, Rules: []Rule{{Path: ws, Access: ReadWrite}}, Rlimits: []Rlimit{{Name: "nofile", Soft: 64, Hard: 64}}}, "/bin/sh", "-c", script)
		cmd.Stdout, cmd.Log = &out, &log
		cmd.ExtraFiles = []*os.File{w3, nil, w5}
		if err := cmd.Start(); err != nil {
			t.Fatalf("%s: %v", init, err)
		}
		w3.Close()
		w5.Close()
		got3, _ := io.ReadAll(r3)
		got5, _ := io.ReadAll(r5)
		r3.Close()
		r5.Close()
		if err := cmd.Wait(); err != nil {
			t.Fatalf("%s: %v (%q)", init, err, out.String())
		}
		say := map[string]string{"go": "the Go child: NSRUN_INIT=go", "raw": "the raw child started"}[init]
		if !strings.Contains(log.String(), say) {
			t.Errorf("%s: no %q in the log:\n%s", init, say, log.String())
		}
		fds, rest, _ := strings.Cut(out.String(), "end\n")
		results[init] = listedFDs(out.String()) + "|" + rest + "|" + string(got3) + string(got5)
		if listedFDs(fds+"end\n") != "0 1 2 3 5" || string(got3) != "three\n" || string(got5) != "five\n" {
			t.Errorf("%s: descriptors %q, through them %q %q", init, listedFDs(fds+"end\n"), got3, got5)
		}
		if rest != "64\ntouch 1\nws 0\n" {
			t.Errorf("%s: limits and Landlock: %q", init, rest)
		}
	}
	if results["go"] != results["raw"] {
		t.Errorf("the Go child: %q\nthe raw child: %q", results["go"], results["raw"])
	}
}
