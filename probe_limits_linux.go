package nsrun

import (
	"errors"
	"fmt"
	"strings"

	"github.com/nsrun/nsrun/internal/sandbox"
)

// probeLimits tries each cgroup limit as a sandbox would get it: it makes
// the cgroup (v2, else v1), puts a process in it the way the init is put
// there, and removes it.
func probeLimits() (ProbeItem, map[string]string) {
	via := map[string]string{}
	var parts []string
	for _, lim := range []struct {
		option string
		policy Policy
	}{
		{"memory", Policy{Memory: 64 << 20}},
		{"pids", Policy{Pids: 64}},
		{"cpu", Policy{CPU: 1}},
	} {
		version, err := sandbox.TryCgroup(cgroupLimits(&lim.policy))
		if err != nil {
			var le *LimitError
			if errors.As(limitError(err), &le) {
				err = le.Err
			}
			parts = append(parts, fmt.Sprintf("--%s unavailable: %v", lim.option, err))
			continue
		}
		via[lim.option] = version
		parts = append(parts, fmt.Sprintf("--%s through cgroup %s", lim.option, version))
	}
	item := ProbeItem{OK: len(via) == 3, Detail: strings.Join(parts, "; ")}
	if len(via) == 0 {
		via = nil
	}
	return item, via
}
