package rawinit

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/nsrun/nsrun/internal/launch"
)

// cliSpec is the spec `nsrun --rw /var/tmp/rawws -- /bin/true` sent its
// init (as root, on the development VM), with a short environment.
func cliSpec(tb testing.TB) *launch.Spec {
	b, err := os.ReadFile("testdata/cli-rw-spec.json")
	if err != nil {
		tb.Fatal(err)
	}
	var s launch.Spec
	if err := json.Unmarshal(b, &s); err != nil {
		tb.Fatal(err)
	}
	return &s
}

func TestCLISpecSupported(t *testing.T) {
	s := cliSpec(t)
	if err := Supports(s); err != nil {
		t.Fatal(err)
	}
	p, err := Compile(Input{Spec: s, Files: []int{0, 1, 2, 7, 8}, SyncR: 9, SyncW: 10, Setsid: true, CapLast: 40})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d ops, %d buffers, %d registers, %d steps", len(p.Ops), len(p.Bufs), p.Regs, len(p.Steps))
}

// BenchmarkCompile is the parent's cost of the raw init for the CLI's
// plan: compiling and linking.
func BenchmarkCompile(b *testing.B) {
	s := cliSpec(b)
	b.ReportAllocs()
	for b.Loop() {
		p, err := Compile(Input{Spec: s, Files: []int{0, 1, 2, 7, 8}, SyncR: 9, SyncW: 10, Setsid: true, CapLast: 40})
		if err != nil {
			b.Fatal(err)
		}
		link(p)
	}
}
