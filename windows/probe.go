package windows

import "fmt"

// Enforced is what the Windows backend enforces where it runs; NotEnforced
// is what it leaves open.
var Enforced = []string{
	"writes: only to --rw paths and a private temp dir (TEMP, TMP): a WRITE_RESTRICTED token and ACEs for the sandbox's own SID",
	"--ro and --deny inside writable paths: DENY ACEs for writes (reads stay open)",
	"privileges: removed (DISABLE_MAX_PRIVILEGE, LUA token)",
	"processes: the payload and all it starts end with the run (a job object that kills them when nsrun goes away)",
	"handles: the payload inherits its standard handles alone",
}

// Check is one thing the backend needs, tried on this host: Err is nil
// when it worked.
type Check struct {
	What string
	Err  error
}

// Verdict says whether the backend can run here: only if every check
// worked. Detail names the first that failed and why, else the backend.
func Verdict(checks []Check) (ok bool, detail string) {
	for _, c := range checks {
		if c.Err != nil {
			return false, fmt.Sprintf("%s: %v: the restricted-token backend cannot run", c.What, c.Err)
		}
	}
	if len(checks) == 0 {
		return false, "nothing was checked"
	}
	return true, "a restricted token (WRITE_RESTRICTED), ACEs and a job object; partial: reads are not confined, no network isolation"
}
