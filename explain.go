package nsrun

import "path/filepath"

// Effect is a policy's rules as they take effect: canonical paths, nsrun's
// own rules included, precedence applied.
type Effect struct {
	Root      string
	Rules     []Rule
	Overruled []Overruled
}

// Explanation is the access a path gets, and the rule that decides it (nil
// when only the root covers it).
type Explanation struct {
	Path   string
	Access Access
	Rule   *Rule
}

// Explain says what access p gets and which rule decides, the answer to
// "why was this denied?". p is made absolute and, where it exists,
// canonical.
func (e *Effect) Explain(p string) Explanation {
	abs, err := filepath.Abs(p)
	if err != nil {
		abs = p
	}
	if canon, err := filepath.EvalSymlinks(abs); err == nil {
		abs = canon
	}
	a, by, ok := Resolve(e.Rules, abs)
	x := Explanation{Path: abs, Access: a}
	if ok {
		x.Rule = &by
	}
	return x
}
