package supervise

import (
	"strconv"
	"testing"
)

// The refusals kept are bounded: distinct ones up to the cap, with
// counts, and only a count of the rest.
func TestRefusalsAreBounded(t *testing.T) {
	r := NewRefusals()
	for i := 0; i < maxRefusals+5; i++ {
		r.add(Refusal{NR: 90, Errno: 1, Path: "/f" + strconv.Itoa(i)})
	}
	for i := 0; i < 3; i++ {
		r.add(Refusal{NR: 90, Errno: 1, Path: "/f0"})
	}
	list, dropped := r.List()
	if len(list) != maxRefusals || dropped != 5 {
		t.Fatalf("kept %d, dropped %d; want %d and 5", len(list), dropped, maxRefusals)
	}
	if list[0].Path != "/f0" || list[0].Count != 4 {
		t.Errorf("first refusal %+v, want /f0 counted 4 times", list[0])
	}
}
