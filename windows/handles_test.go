package windows

import (
	"reflect"
	"testing"
)

func TestPlanStd(t *testing.T) {
	inv := invalidHandle
	for _, c := range []struct {
		name string
		std  [3]uintptr
		want StdPlan
	}{
		{"three files", [3]uintptr{4, 8, 12}, StdPlan{Dup: []uintptr{4, 8, 12}, Slot: [3]int{0, 1, 2}}},
		{"stdout and stderr one file", [3]uintptr{4, 8, 8}, StdPlan{Dup: []uintptr{4, 8}, Slot: [3]int{0, 1, 1}}},
		{"one file for all", [3]uintptr{8, 8, 8}, StdPlan{Dup: []uintptr{8}, Slot: [3]int{0, 0, 0}}},
		{"stdin and stderr one file", [3]uintptr{8, 4, 8}, StdPlan{Dup: []uintptr{8, 4}, Slot: [3]int{0, 1, 0}}},
		{"a null handle", [3]uintptr{0, 8, 12}, StdPlan{Dup: []uintptr{8, 12}, Slot: [3]int{-1, 0, 1}}},
		{"an invalid handle", [3]uintptr{4, inv, 12}, StdPlan{Dup: []uintptr{4, 12}, Slot: [3]int{0, -1, 1}}},
		{"none", [3]uintptr{0, inv, 0}, StdPlan{Slot: [3]int{-1, -1, -1}}},
	} {
		if got := PlanStd(c.std); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: PlanStd(%v) = %+v, want %+v", c.name, c.std, got, c.want)
		}
		// The list never holds a null or invalid handle, nor one twice.
		seen := map[uintptr]bool{}
		for _, h := range PlanStd(c.std).Dup {
			if h == 0 || h == inv || seen[h] {
				t.Errorf("%s: list %v", c.name, PlanStd(c.std).Dup)
			}
			seen[h] = true
		}
	}
}
