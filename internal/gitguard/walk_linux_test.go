package gitguard

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// BenchmarkWalk is the walk at each launch of the preset over a tree of
// 20,000 directories with five files each (GITGUARD_TREE names another
// tree to walk). cpu-ms/op is the processor time, less sensitive than the
// time per op to what else the machine runs.
func BenchmarkWalk(b *testing.B) {
	root := os.Getenv("GITGUARD_TREE")
	if root == "" {
		root = b.TempDir()
		tree(b, root, 20_000, 5)
	}
	var before, after unix.Rusage
	unix.Getrusage(unix.RUSAGE_SELF, &before)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		walk(root, walkLimit, func(string, *listing) {})
	}
	b.StopTimer()
	unix.Getrusage(unix.RUSAGE_SELF, &after)
	cpu := after.Utime.Nano() + after.Stime.Nano() - before.Utime.Nano() - before.Stime.Nano()
	b.ReportMetric(float64(cpu)/1e6/float64(b.N), "cpu-ms/op")
}
