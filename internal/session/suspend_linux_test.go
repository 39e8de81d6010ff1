package session

import "testing"

func TestDecideSuspend(t *testing.T) {
	all := suspendFacts{key: true, leaderFG: true, jobControl: true}
	for _, tc := range []struct {
		name string
		f    suspendFacts
		want Suspend
	}{
		{"Ctrl-Z to a plain command: it and nsrun exec stop", all, SuspendStop},
		{"another key", suspendFacts{leaderFG: true, jobControl: true}, SuspendPass},
		{"a shell's job in the foreground: the shell stops it", suspendFacts{key: true, jobControl: true}, SuspendPass},
		{"a shell at its prompt ignores it", suspendFacts{key: true, leaderFG: true, handles: true, jobControl: true}, SuspendPass},
		{"nobody could continue nsrun exec", suspendFacts{key: true, leaderFG: true}, SuspendPass},
	} {
		if got := decideSuspend(tc.f); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
