package nsrun

import (
	"fmt"
	"net"
	"strconv"

	"github.com/nsrun/nsrun/internal/errs"
	"github.com/nsrun/nsrun/internal/policyfile"
)

// Suggestion is what would allow the denials of a report: the options,
// each with the denials it answers, and the same as policy-file settings.
// It is for a user to review; nothing applies it.
type Suggestion struct {
	Options []SuggestedOption
	// Unanswered are the denials no option allows (a seccomp refusal, a
	// mandatory rule), described.
	Unanswered []string
	// PolicyFile holds the settings of Options in a policy file's terms
	// (version 1), "" when there are none.
	PolicyFile string
}

// SuggestedOption is one option and what it would allow.
type SuggestedOption struct {
	Option string   // "--rw /x"
	Allows []string // the denials, described
}

// Suggest turns a report's denials (and the filtered network's refusals)
// into the options that would allow them.
func Suggest(r *Report) (*Suggestion, error) {
	if r.Denials == nil {
		return nil, errs.New("the report has no \"denials\": run the command with %s", errs.TraceDenials)
	}
	s := &Suggestion{}
	add := func(opt, what string) {
		for i := range s.Options {
			if s.Options[i].Option == opt {
				s.Options[i].Allows = append(s.Options[i].Allows, what)
				return
			}
		}
		s.Options = append(s.Options, SuggestedOption{Option: opt, Allows: []string{what}})
	}
	for _, d := range r.Denials {
		what := describeDenial(d)
		if d.Allow == "" {
			s.Unanswered = append(s.Unanswered, what)
			continue
		}
		add(d.Allow, what)
	}
	if r.Network != nil {
		for _, n := range r.Network.Denied {
			add("--allow-host "+hostPort(n), fmt.Sprintf("connect %s: refused by the filtered network, %dx", hostPort(n), n.Count))
		}
	}
	pf, err := suggestedPolicyFile(s.Options)
	if err != nil {
		return nil, err
	}
	s.PolicyFile = pf
	return s, nil
}

func describeDenial(d Denial) string {
	what := d.Operation
	if t := d.Path + d.Address; t != "" {
		what += " " + t
	}
	return fmt.Sprintf("%s: %s (%s), %dx", what, d.Errno, d.Rule, d.Count)
}

// suggestedPolicyFile writes options as policy-file settings.
func suggestedPolicyFile(opts []SuggestedOption) (string, error) {
	var options []string
	for _, o := range opts {
		options = append(options, o.Option)
	}
	return policyfile.Suggested(options)
}

// maxDenials bounds the distinct denials a sandbox's report lists: a
// payload that floods them costs a count, not memory.
const maxDenials = 1000

// DenialSummary is the short account of what a sandbox refused, one line
// per distinct denial and per host the filtered network refused, with the
// option that would allow it where there is one; nil when nothing was
// refused.
func DenialSummary(r *Report) []string {
	var out []string
	for _, d := range r.Denials {
		what := d.Path
		if what == "" {
			what = d.Address
		}
		line := fmt.Sprintf("denied %dx: %s", d.Count, d.Operation)
		if what != "" {
			line += " " + what
		}
		line += fmt.Sprintf(": %s (%s)", d.Errno, d.Rule)
		if d.Allow != "" {
			line += "; add " + d.Allow
		}
		out = append(out, line)
	}
	if r.DenialsDropped > 0 {
		out = append(out, fmt.Sprintf("denied: %d more not listed (over %d distinct)", r.DenialsDropped, maxDenials))
	}
	if r.Network != nil && r.Denials != nil {
		for _, n := range r.Network.Denied {
			out = append(out, fmt.Sprintf("denied %dx: connect %s: refused by the filtered network (network.denied); add --allow-host %s",
				n.Count, hostPort(n), hostPort(n)))
		}
	}
	return out
}

func hostPort(n NetworkCount) string {
	if n.Port == 0 {
		return n.Host
	}
	return net.JoinHostPort(n.Host, strconv.Itoa(n.Port))
}
