package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/nsrun/nsrun"
)

func probe(args []string, stdout, stderr *os.File) int {
	asJSON := false
	for _, a := range args {
		switch a {
		case "--json", "-json":
			asJSON = true
		default:
			fmt.Fprintf(stderr, "nsrun: probe: unknown option %s\n", a)
			return nsrun.ExitSetup
		}
	}
	p := nsrun.ProbeHost()
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(p); err != nil {
			return nsrun.ExitSetup
		}
	} else {
		for _, it := range []struct {
			name string
			item nsrun.ProbeItem
		}{
			{"user namespaces", p.UserNamespaces},
			{"procfs", p.Procfs},
			{"sysfs", p.Sysfs},
			{"mount_setattr", p.MountSetattr},
			{"landlock", p.Landlock},
			{"seccomp", p.Seccomp},
			{"cgroup v2", p.CgroupV2},
			{"limits", p.Limits},
			{"seatbelt", p.Seatbelt},
		} {
			mark := "yes"
			if !it.item.OK {
				mark = "no "
			}
			fmt.Fprintf(stdout, "%-16s %s  %s\n", it.name, mark, it.item.Detail)
		}
		if p.Nested {
			fmt.Fprintln(stdout, "nested           yes  already inside a user namespace (a container or another sandbox)")
		}
		mark := "yes"
		if !p.LandlockOnly.OK {
			mark = "no "
		}
		fmt.Fprintf(stdout, "%-16s %s  %s\n", "landlock only", mark, p.LandlockOnly.Detail)
		printLists(stdout, p.LandlockOnly.Enforced, p.LandlockOnly.Compensations, p.LandlockOnly.NotEnforced)
		mark = "yes"
		if !p.RestrictedToken.OK {
			mark = "no "
		}
		fmt.Fprintf(stdout, "%-16s %s  %s\n", "restricted token", mark, p.RestrictedToken.Detail)
		printLists(stdout, p.RestrictedToken.Enforced, nil, p.RestrictedToken.NotEnforced)
	}
	return probeStatus(p)
}

// printLists prints what a backend enforces, compensates and leaves open.
func printLists(stdout *os.File, enforced, compensated, notEnforced []string) {
	for _, l := range []struct {
		what  string
		lines []string
	}{{"enforced", enforced}, {"compensated", compensated}, {"not enforced", notEnforced}} {
		for _, line := range l.lines {
			fmt.Fprintf(stdout, "  %-14s %s\n", l.what+":", line)
		}
	}
}

// probeStatus is nsrun probe's exit status: 0 when this system's default
// sandbox can be built (on Linux one with namespaces, --isolation full;
// on macOS Seatbelt; on Windows the restricted token), else 1.
func probeStatus(p nsrun.Probe) int {
	if p.UserNamespaces.OK && p.Procfs.OK && p.Sysfs.OK && p.MountSetattr.OK || p.Seatbelt.OK || p.RestrictedToken.OK {
		return 0
	}
	return 1
}
