package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/nsrun/nsrun"
)

// policySuggest is nsrun policy suggest REPORT: the options that would
// allow what a report's denials show, for the user to review. It changes
// nothing.
func policySuggest(args []string, stdout, stderr *os.File) int {
	if len(args) != 1 {
		fmt.Fprintln(stderr, "nsrun: policy suggest: want one report (nsrun policy suggest REPORT)")
		return nsrun.ExitSetup
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "nsrun: policy suggest %s: %s\n", oneLine(args[0]), oneLine(withFlags(err.Error(), err)))
		return nsrun.ExitSetup
	}
	b, err := os.ReadFile(args[0])
	if err != nil {
		return fail(err)
	}
	var r nsrun.Report
	if err := json.Unmarshal(b, &r); err != nil {
		return fail(fmt.Errorf("not a report: %w", err))
	}
	s, err := nsrun.Suggest(&r)
	if err != nil {
		return fail(err)
	}
	if len(s.Options)+len(s.Unanswered) == 0 {
		fmt.Fprintln(stdout, "# nothing was denied")
		return 0
	}
	fmt.Fprintln(stdout, "# options that would allow what was denied; nothing is applied: review each")
	for _, o := range s.Options {
		fmt.Fprintln(stdout, o.Option)
		for _, a := range o.Allows {
			fmt.Fprintf(stdout, "    # %s\n", oneLine(a))
		}
	}
	for _, u := range s.Unanswered {
		fmt.Fprintf(stdout, "# no option allows: %s\n", oneLine(u))
	}
	if s.PolicyFile != "" {
		fmt.Fprintln(stdout, "# the same as policy-file settings:")
		fmt.Fprintln(stdout, s.PolicyFile)
	}
	return 0
}
