package supervise

import (
	"testing"

	"github.com/nsrun/nsrun/seccomp"
)

func TestSelfTargetOnlyTheCaller(t *testing.T) {
	const tid, tgid = 1234, 1200
	for _, tc := range []struct {
		name string
		args [6]uint64
		want bool
	}{
		{"prlimit64", [6]uint64{0}, true},
		{"prlimit64", [6]uint64{tid}, true},
		{"prlimit64", [6]uint64{tgid}, true},
		{"prlimit64", [6]uint64{1}, false},
		{"prlimit64", [6]uint64{1<<32 | tgid}, true}, // the kernel reads an int
		{"prlimit64", [6]uint64{1<<32 | 1}, false},
		{"sched_setaffinity", [6]uint64{tid + 1}, false},
		{"setpriority", [6]uint64{0, 0}, true},      // PRIO_PROCESS, self
		{"setpriority", [6]uint64{0, tgid}, true},   // PRIO_PROCESS, own pid
		{"setpriority", [6]uint64{0, 77}, false},    // another process
		{"setpriority", [6]uint64{1, 0}, false},     // PRIO_PGRP: the whole group
		{"setpriority", [6]uint64{2, 0}, false},     // PRIO_USER: every process of the user
		{"ioprio_set", [6]uint64{1, 0}, true},       // IOPRIO_WHO_PROCESS, self
		{"ioprio_set", [6]uint64{1, tid}, true},     //
		{"ioprio_set", [6]uint64{2, 0}, false},      // IOPRIO_WHO_PGRP
		{"ioprio_set", [6]uint64{3, 0}, false},      // IOPRIO_WHO_USER
		{"ioprio_set", [6]uint64{0, 0}, false},      // not a valid which
		{"sched_setattr", [6]uint64{tgid, 0}, true}, //
	} {
		if got := selfTarget(calls()[tc.name], tc.args, tid, tgid); got != tc.want {
			t.Errorf("%s %v: %v, want %v", tc.name, tc.args[:2], got, tc.want)
		}
	}
}

// Every call the Landlock-only filter hands over has a handler here.
func TestEveryHandedCallIsKnown(t *testing.T) {
	p := seccomp.LandlockOnly(seccomp.LandlockOnlyOptions{Connect: true})
	for _, r := range p.Rules {
		if r.Action.Kind != seccomp.ActNotify {
			continue
		}
		for _, name := range r.Names {
			if _, ok := calls()[name]; !ok {
				t.Errorf("the filter hands over %s, which the supervisor does not know", name)
			}
		}
	}
}
