package sandbox

import (
	"github.com/nsrun/nsrun/internal/launch"
	"testing"

	"golang.org/x/sys/unix"
)

func TestPlanTerminal(t *testing.T) {
	none := [3]bool{}
	all := [3]bool{true, true, true}
	for _, tc := range []struct {
		name   string
		mode   TTYMode
		isTerm [3]bool
		want   termPlan
	}{
		{"never, on a terminal", TTYNever, all, termPlan{terminal: -1, output: -1}},
		{"auto, piped", TTYAuto, none, termPlan{terminal: -1, output: -1}},
		{"auto, interactive", TTYAuto, all, termPlan{pty: true, replace: all, terminal: 0, keys: true, output: 1}},
		{"auto, output redirected: keys and their echo", TTYAuto, [3]bool{true, false, false},
			termPlan{pty: true, replace: [3]bool{true, false, false}, terminal: 0, keys: true, output: 0}},
		{"auto, stderr alone", TTYAuto, [3]bool{false, false, true},
			termPlan{pty: true, replace: [3]bool{false, false, true}, terminal: 2, keys: true, output: 2}},
		{"auto, fed by a pipe into a terminal", TTYAuto, [3]bool{false, true, true},
			termPlan{pty: true, replace: [3]bool{false, true, true}, terminal: 1, keys: true, output: 1}},
		{"always, piped", TTYAlways, none, termPlan{pty: true, replace: all, terminal: -1, data: true, output: 1}},
		{"always, interactive", TTYAlways, all, termPlan{pty: true, replace: all, terminal: 0, keys: true, output: 1}},
		{"always, input from a file", TTYAlways, [3]bool{false, true, false},
			termPlan{pty: true, replace: all, terminal: 1, data: true, output: 1}},
	} {
		if got := planTerminal(tc.mode, tc.isTerm); got != tc.want {
			t.Errorf("%s: got %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

func TestDecideJob(t *testing.T) {
	tstp, ttin, ttou := unix.SIGTSTP, unix.SIGTTIN, unix.SIGTTOU
	for _, tc := range []struct {
		name     string
		ev       jobEvent
		sig      unix.Signal
		fg, jobs bool
		want     jobAction
	}{
		{"start in the foreground", jobStart, 0, true, true, jobAction{hold: true}},
		{"start in the background: the payload goes there too", jobStart, 0, false, true, jobAction{ctl: launch.CtlBackground}},
		{"Ctrl-Z: nsrun stops as the payload did", jobStopped, tstp, true, true, jobAction{stop: tstp}},
		{"fg", jobContinued, 0, true, true, jobAction{hold: true, ctl: launch.CtlForeground}},
		{"bg", jobContinued, 0, false, true, jobAction{ctl: launch.CtlBackground}},
		{"a background payload reads its terminal", jobStopped, ttin, false, true, jobAction{stop: ttin}},
		{"a background payload sets its modes", jobStopped, ttou, false, true, jobAction{stop: ttou}},
		{"it reads after fg without SIGCONT (fg of a running job)", jobStopped, ttin, true, true, jobAction{hold: true, ctl: launch.CtlForeground}},
		{"found in the background", jobBackground, 0, false, true, jobAction{ctl: launch.CtlBackground}},
		{"no job control: never stop", jobStopped, tstp, true, false, jobAction{hold: true, ctl: launch.CtlForeground}},
		{"no job control, start", jobStart, 0, true, false, jobAction{hold: true}},
	} {
		if got := decideJob(tc.ev, tc.sig, tc.fg, tc.jobs); got != tc.want {
			t.Errorf("%s: got %+v, want %+v", tc.name, got, tc.want)
		}
	}
}
