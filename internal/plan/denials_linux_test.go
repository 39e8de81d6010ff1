package plan

import (
	"fmt"
	"math"
	"testing"
)

func TestDenialLogCapsAndCounts(t *testing.T) {
	const max = 1000
	l := NewDenialLog(max)
	for i := range 100_000 {
		l.Add(Denial{Operation: "open for write", Path: fmt.Sprintf("/usr/f%d", i), Errno: "EROFS", Rule: "read-only: host root"})
	}
	for range 5 {
		l.Add(Denial{Operation: "open for write", Path: "/usr/f0", Errno: "EROFS", Rule: "read-only: host root"})
	}
	entries, dropped := l.List()
	if len(entries) != max || dropped != 100_000-max || entries[0].Count != 6 {
		t.Fatalf("%d entries, %d dropped, first counted %d", len(entries), dropped, entries[0].Count)
	}
	l.entries[0].Count = math.MaxInt32
	l.Add(entries[0])
	if got, _ := l.List(); got[0].Count != math.MaxInt32 {
		t.Errorf("count past its cap: %d", got[0].Count)
	}
}

// The supervisor's refusals come counted, and those it could not keep
// as a number: both saturate as the tracer's do.
func TestDenialLogAddsCounts(t *testing.T) {
	l := NewDenialLog(1000)
	d := Denial{Operation: "connect", Address: "10.0.0.1:80", Errno: "EACCES", Rule: "landlock: tcp"}
	l.AddCount(d, 3)
	l.AddCount(d, 0)
	l.Drop(5)
	if got, dropped := l.List(); len(got) != 1 || got[0].Count != 3 || dropped != 5 {
		t.Fatalf("%+v, %d dropped", got, dropped)
	}
	l.Drop(math.MaxInt32)
	if _, dropped := l.List(); dropped != math.MaxInt32 {
		t.Errorf("dropped past its cap: %d", dropped)
	}
}

// A session's own denials are those of every group no command took, one
// entry each, their counts added.
func TestDenialLogMerge(t *testing.T) {
	d := Denial{Operation: "open", Path: "/x", Errno: "EACCES", Rule: "r"}
	a, b := NewDenialLog(10), NewDenialLog(10)
	a.AddCount(d, 2)
	b.AddCount(d, 3)
	b.Drop(4)
	if got, dropped := Merge(10, []*DenialLog{a, b}).List(); len(got) != 1 || got[0].Count != 5 || dropped != 4 {
		t.Fatalf("%+v, %d dropped", got, dropped)
	}
}
