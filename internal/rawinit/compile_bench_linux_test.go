package rawinit

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/nsrun/nsrun/internal/launch"
	"github.com/nsrun/nsrun/mounts"
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

// BenchmarkCompileManyRules is the CLI's plan with 2,000 more binds (1,000
// read-only rules, each with the pin below it): the op list is reserved up
// front, so compiling it stays linear (it grew by copies, 200 ms, before).
func BenchmarkCompileManyRules(b *testing.B) {
	s := cliSpec(b)
	var bind mounts.Op
	for _, op := range s.Plan.Ops {
		if op.Kind == mounts.OpBind {
			bind = op
			break
		}
	}
	for i := range 2000 {
		o := bind
		o.Path = fmt.Sprintf("/var/tmp/ws/r%d/d%d", i, i)
		o.Source = o.Path
		s.Plan.Ops = append(s.Plan.Ops, o)
	}
	b.ReportAllocs()
	for b.Loop() {
		p, err := Compile(Input{Spec: s, Files: []int{0, 1, 2, 7, 8}, SyncR: 9, SyncW: 10, Setsid: true, CapLast: 40})
		if err != nil {
			b.Fatal(err)
		}
		link(p)
	}
}
