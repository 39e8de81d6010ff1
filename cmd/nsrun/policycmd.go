package main

import (
	"fmt"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/nsrun/nsrun"
)

// policyCommand is nsrun policy explain|show|suggest.
func policyCommand(args []string, stdout, stderr *os.File) int {
	if len(args) > 0 && args[0] == "suggest" {
		return policySuggest(args[1:], stdout, stderr)
	}
	if len(args) == 0 || (args[0] != "explain" && args[0] != "show") {
		fmt.Fprintln(stderr, "nsrun: policy: want explain, show or suggest (nsrun policy explain [OPTIONS] PATH..., nsrun policy show [OPTIONS], nsrun policy suggest REPORT)")
		return nsrun.ExitSetup
	}
	o, err := parseOptions(args[1:])
	if err == nil && args[0] == "explain" && len(o.args) == 0 {
		err = usagef("policy explain: no path given")
	}
	if err == nil && args[0] == "show" && len(o.args) > 0 {
		err = usagef("policy show: unexpected argument %q", o.args[0])
	}
	var m *merged
	if err == nil {
		m, err = merge(o, os.Environ())
	}
	var eff *nsrun.Effect
	if err == nil {
		eff, err = m.policy.Effect()
	}
	if err != nil {
		fmt.Fprintln(stderr, "nsrun:", oneLine(describe(err)))
		return nsrun.ExitSetup
	}
	w := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	defer w.Flush()
	if args[0] == "show" {
		fmt.Fprintf(w, "root\t%s\tread-only\n", eff.Root)
		for _, r := range eff.Rules {
			fmt.Fprintf(w, "%s\t%s\t%s%s\n", r.Access, r.Path, r.Source, from(r))
		}
		for _, o := range eff.Overruled {
			fmt.Fprintf(w, "overruled\t%s\n", o)
		}
		for _, a := range eff.Absent {
			fmt.Fprintf(w, "absent\t%s\tkept absent: the sandbox is ended if it appears\n", a)
		}
		fmt.Fprintf(w, "net\t%s\n", map[nsrun.Net]string{nsrun.NetNone: "none", nsrun.NetHost: "host"}[m.policy.Net])
		switch m.policy.Home {
		case nsrun.HomePrivate:
			fmt.Fprintf(w, "home\tprivate (HOME and caches in an empty /tmp/home, per run)\n")
		case nsrun.HomePersistent:
			dir := m.policy.HomeDir
			if dir == "" {
				dir = "nsrun's own directory for you"
			}
			fmt.Fprintf(w, "home\tpersistent (HOME and caches in %s, kept between runs)\n", dir)
		}
		if m.policy.ProtectGit {
			fmt.Fprintf(w, "git\tprotected (what git writes stays writable; what host git runs or trusts is read-only or kept absent)\n")
		}
		for _, op := range m.envOps {
			switch op.kind {
			case envUnset:
				fmt.Fprintf(w, "env\tunset %s\n", op.key)
			case envKeep:
				fmt.Fprintf(w, "env\tkeep %s\n", op.key)
			case envSet:
				fmt.Fprintf(w, "env\tset %s\n", op.key)
			case envClear:
				fmt.Fprintf(w, "env\tclear\n")
			}
		}
		if len(m.policy.UnsetEnv) > 0 {
			fmt.Fprintf(w, "env\tremoved now: %s\n", strings.Join(m.policy.UnsetEnv, " "))
		}
		if o.preset == "agent" || m.preset == "agent" {
			var stores []string
			for _, c := range nsrun.Credentials {
				stores = append(stores, "~/"+c.Path)
			}
			fmt.Fprintf(w, "credentials\thidden where they exist, under %s: %s\n", strings.Join(nsrun.Homes(), " and "), strings.Join(stores, " "))
		}
		return 0
	}
	for _, p := range o.args {
		x := eff.Explain(p)
		if x.Rule == nil {
			fmt.Fprintf(w, "%s\t%s\tthe root, read-only\n", x.Path, x.Access)
			continue
		}
		fmt.Fprintf(w, "%s\t%s\tby %s %s (%s)%s\n", x.Path, x.Access, x.Rule.Access, x.Rule.Path, x.Rule.Source, from(*x.Rule))
	}
	return 0
}

// from says where a rule's content comes from, when not from its own path.
func from(r nsrun.Rule) string {
	switch {
	case r.From == "":
		return ""
	case r.Access == nsrun.Symlink:
		return ", to " + r.From
	}
	return ", from " + r.From
}
