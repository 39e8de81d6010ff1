package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/nsrun/nsrun"
)

// options is the command line, parsed but not yet checked against the
// filesystem.
type options struct {
	policy     nsrun.Policy
	policyFile string
	preset     string
	set        map[string]bool // the flags given
	args       []string
	dir        string
	envOps     []envOp
	timeout    time.Duration
	killAfter  time.Duration
	// idleTimeout is `session start`'s: a one-shot run refuses it.
	idleTimeout time.Duration
	tty         nsrun.TTYMode
	report      string
	verbose     bool
	quiet       bool
	help        bool
	printProf   bool
}

// usageError is bad input on the command line.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return &usageError{fmt.Sprintf(format, a...)} }

// optionValue is an option as the flag package holds it, bound to the
// options it sets.
type optionValue struct {
	opt   *option
	o     *options
	given bool
}

func (v *optionValue) String() string   { return "" }
func (v *optionValue) IsBoolFlag() bool { return v.opt.arg == "" }
func (v *optionValue) Set(s string) error {
	if v.opt.once && v.given {
		return errors.New("given twice; give it once")
	}
	v.given = true
	return v.opt.set(v.o, s)
}

// newFlagSet is the flag set of optionSections, setting o. It prints
// nothing: flagError words its errors.
func newFlagSet(o *options) *flag.FlagSet {
	fs := flag.NewFlagSet("nsrun", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	for i := range optionSections {
		for j := range optionSections[i].options {
			v := &optionValue{opt: &optionSections[i].options[j], o: o}
			fs.Var(v, v.opt.name, "")
			if v.opt.alias != "" {
				fs.Var(v, v.opt.alias, "")
			}
		}
	}
	return fs
}

// lookupOption is the option fs knows by name, or nil.
func lookupOption(fs *flag.FlagSet, name string) *option {
	if f := fs.Lookup(name); f != nil {
		if v, ok := f.Value.(*optionValue); ok {
			return v.opt
		}
	}
	return nil
}

// joinPairs rewrites each two-argument option before the command as one
// flag whose value holds both, NUL-separated.
func joinPairs(fs *flag.FlagSet, args []string) ([]string, error) {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" || !strings.HasPrefix(a, "-") || a == "-" {
			return append(out, args[i:]...), nil
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		opt := lookupOption(fs, name)
		if opt != nil && opt.takesTwo() {
			if hasValue {
				return nil, usagef("option %s takes two arguments: %s %s", dashes(name), dashes(name), opt.arg)
			}
			if i+2 >= len(args) || args[i+1] == "--" || args[i+2] == "--" {
				return nil, usagef("option %s needs two arguments: %s %s", dashes(name), dashes(name), opt.arg)
			}
			out = append(out, "--"+name+"="+args[i+1]+"\x00"+args[i+2])
			i += 2
			continue
		}
		out = append(out, a)
		if opt == nil || hasValue || opt.arg == "" {
			continue
		}
		if i+1 < len(args) {
			out = append(out, args[i+1])
			i++
		}
	}
	return out, nil
}

// parseOptions parses options up to the first argument that is not one.
func parseOptions(args []string) (*options, error) {
	o := &options{set: map[string]bool{}}
	fs := newFlagSet(o)
	args, err := joinPairs(fs, args)
	if err != nil {
		return nil, err
	}
	if err := fs.Parse(args); err != nil {
		return nil, flagError(err, fs)
	}
	fs.Visit(func(f *flag.Flag) { o.set[f.Name] = true })
	o.args = fs.Args()
	return o, nil
}

// parseArgs parses the options before the command. The command starts at
// the first argument that is not an option, or after "--".
func parseArgs(args []string) (*options, error) {
	o, err := parseOptions(args)
	if err != nil || o.help || o.printProf {
		return o, err
	}
	if o.set["idle-timeout"] {
		return nil, usagef("--idle-timeout is for `nsrun session start`")
	}
	if len(o.args) == 0 || o.args[0] == "" {
		return nil, usagef("no command given (usage: nsrun [OPTIONS] [--] COMMAND [ARG...])")
	}
	return o, nil
}

// flagError turns the flag package's messages into nsrun's one-line form.
func flagError(err error, fs *flag.FlagSet) error {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
		name = strings.TrimLeft(name, "-")
		if near := nearestOption(fs, name); near != "" {
			return usagef("unknown option %s (did you mean %s?)", dashes(name), dashes(near))
		}
		return usagef("unknown option %s", dashes(name))
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: "); ok {
		return usagef("option %s needs a value", dashes(strings.TrimLeft(name, "-")))
	}
	// invalid value "V" for flag -NAME: REASON
	if rest, ok := strings.CutPrefix(msg, "invalid value "); ok {
		if val, after, ok := strings.Cut(rest, " for flag -"); ok {
			name, reason, _ := strings.Cut(after, ": ")
			// The two arguments of a pair option, as given.
			val = strings.ReplaceAll(val, `\x00`, `" "`)
			return usagef("%s %s: %s", dashes(name), val, reason)
		}
	}
	if rest, ok := strings.CutPrefix(msg, "invalid boolean value "); ok {
		return usagef("invalid boolean value %s", rest)
	}
	return usagef("%s", msg)
}

func dashes(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// nearestOption is the option a mistyped name most likely meant: the one
// fewest edits away, if at most two (one for names of up to four
// letters, none for one or two: so few edits reach too many), else "".
func nearestOption(fs *flag.FlagSet, name string) string {
	limit := 2
	switch {
	case len(name) <= 2:
		return ""
	case len(name) <= 4:
		limit = 1
	}
	best, bestD := "", limit+1
	consider := func(option string) {
		if d := editDistance(name, option); d < bestD || d == bestD && option < best {
			best, bestD = option, d
		}
	}
	fs.VisitAll(func(f *flag.Flag) { consider(f.Name) })
	consider("version") // run's, not a flag
	return best
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
