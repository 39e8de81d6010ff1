package nsrun

import (
	"regexp"
	"strings"
	"testing"

	"github.com/nsrun/nsrun/darwin"
	"github.com/nsrun/nsrun/mounts"
)

var sbLine = regexp.MustCompile(`^\((allow|deny) ([a-z*\- ]+?) \(subpath \(param "(P\d+)"\)\)\)$`)

// seatbeltAccess evaluates a generated profile for one path: the last rule
// matching each operation decides, as in Seatbelt.
func seatbeltAccess(prof darwin.Profile, p string) Access {
	params := map[string]string{}
	for _, prm := range prof.Params {
		params[prm.Name] = prm.Value
	}
	read, write := false, false
	for _, l := range strings.Split(prof.Text, "\n") {
		m := sbLine.FindStringSubmatch(l)
		if m == nil || !mounts.Within(p, params[m[3]]) {
			continue
		}
		allow := m[1] == "allow"
		for _, op := range strings.Fields(m[2]) {
			switch op {
			case "file-read*":
				read = allow
			case "file-write*":
				write = allow
			}
		}
	}
	switch {
	case write:
		return ReadWrite
	case read:
		return ReadOnly
	}
	return Deny
}

// The Seatbelt profile gives every probe path what Resolve says.
func TestSeatbeltProfileAgreesWithResolve(t *testing.T) {
	for i, rules := range agreementCorpus {
		eff, _ := Effective(rules)
		in := darwin.Input{ReadRoots: []string{"/"}}
		skip := false
		for _, e := range eff {
			a, ok := map[Access]darwin.Access{ReadWrite: darwin.ReadWrite, ReadOnly: darwin.ReadOnly, Deny: darwin.Deny}[e.Access]
			if !ok {
				skip = true // no tmpfs under Seatbelt
			}
			in.Rules = append(in.Rules, darwin.Rule{Path: e.Path, Access: a})
		}
		if skip {
			continue
		}
		prof := darwin.Generate(in)
		for _, p := range agreementProbes {
			want, _, _ := Resolve(eff, p)
			if got := seatbeltAccess(prof, p); got != want {
				t.Errorf("corpus %d, %s: Seatbelt gives %s, Resolve %s", i, p, got, want)
			}
		}
	}
}
