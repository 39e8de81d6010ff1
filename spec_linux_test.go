package nsrun

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/nsrun/nsrun/internal/launch"
	"github.com/nsrun/nsrun/internal/plan"
)

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
	prep, err := cmd.prepare(plan.Facts{})
	if err != nil {
		t.Fatal(err)
	}
	prep.Spec.Verbose = true
	prep.Spec.TTY = &launch.TTYSpec{Streams: 5, Foreground: true, Mode: []byte{1, 2, 3}, Rows: 24, Cols: 80}
	if prep.Spec.Landlock == nil || len(prep.Spec.Seccomp) == 0 || len(prep.Spec.Rlimits) == 0 {
		if os.Getenv("NSRUN_INTEGRATION") == "1" {
			t.Fatalf("no Landlock or seccomp layer in the spec: %+v", prep.Report)
		}
		t.Skipf("this host gives no Landlock or seccomp layer to carry: %+v", prep.Report)
	}
	b, err := launch.EncodeSpec(&prep.Spec)
	if err != nil {
		t.Fatal(err)
	}
	got, err := launch.ReadSpec(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(*got, prep.Spec) {
		t.Errorf("got %+v\nwant %+v", *got, prep.Spec)
	}
}
