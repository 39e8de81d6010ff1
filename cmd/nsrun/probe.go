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
		for _, l := range []struct {
			what  string
			lines []string
		}{{"enforced", p.LandlockOnly.Enforced}, {"compensated", p.LandlockOnly.Compensations}, {"not enforced", p.LandlockOnly.NotEnforced}} {
			for _, line := range l.lines {
				fmt.Fprintf(stdout, "  %-14s %s\n", l.what+":", line)
			}
		}
	}
	// 0 when a sandbox with namespaces (--isolation full) can be built.
	if !(p.UserNamespaces.OK && p.Procfs.OK && p.Sysfs.OK && p.MountSetattr.OK) && !p.Seatbelt.OK {
		return 1
	}
	return 0
}
