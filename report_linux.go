package nsrun

import (
	"fmt"
	"strings"
)

// enforcement is the report's overall word on the layers. The host's
// network, asked for, is no layer missing.
func enforcement(r *Report, hostNet bool) string {
	ns := r.Namespaces
	if ns.User && ns.Mount && ns.PID && ns.IPC && ns.UTS && (ns.Net || hostNet) && ns.Cgroup &&
		r.Landlock.Status == "full" && r.Seccomp.Status == "full" && r.Filesystem.Proc != "host" {
		return "full"
	}
	if !ns.User && r.Landlock.Status != "full" && r.Landlock.Status != "partial" {
		return "none"
	}
	return "partial"
}

// strictError lists what keeps a sandbox from being fully enforced.
func strictError(r *Report, isolation Isolation) error {
	var missing []string
	if isolation == IsolationLandlock {
		missing = append(missing, "namespaces (--isolation landlock)")
	} else if r.Filesystem.Proc == "host" {
		missing = append(missing, "a private /proc (--proc host)")
	}
	if r.Landlock.Status != "full" {
		what := r.Landlock.Status
		if len(r.Landlock.Dropped) > 0 {
			what = strings.Join(r.Landlock.Dropped, ", ")
		}
		missing = append(missing, fmt.Sprintf("landlock: %s", what))
	}
	if r.Seccomp.Status != "full" {
		what := "seccomp: " + r.Seccomp.Status
		if r.Seccomp.Reason != "" {
			what += " (" + r.Seccomp.Reason + ")"
		}
		missing = append(missing, what)
	}
	if len(missing) == 0 {
		return nil
	}
	return &SetupError{Code: ExitSetup, Msg: "--strict: not fully enforced: " + strings.Join(missing, "; ")}
}
