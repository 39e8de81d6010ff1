package nsrun

import (
	"errors"
	"testing"
)

// TestStartRefusesOutOfRangeValues: Start refuses a size, a pids or a CPU
// limit out of range before anything runs, whoever filled the Policy.
func TestStartRefusesOutOfRangeValues(t *testing.T) {
	needSandbox(t)
	for name, p := range map[string]*Policy{"TmpfsSize 2^63+1": {TmpfsSize: 1<<63 + 1}, "Memory 2^63": {Memory: 1 << 63}, "CPU 1e-9": {CPU: 1e-9}} {
		err := Command(p, "/bin/true").Run()
		var se *SetupError
		var le *LimitError
		if ExitCode(err) != ExitSetup || !errors.As(err, &se) && !errors.As(err, &le) {
			t.Errorf("%s: got %v (exit %d), want it refused (125)", name, err, ExitCode(err))
		}
	}
}
