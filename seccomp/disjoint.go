package seccomp

import "fmt"

// disjoint reports whether no arguments satisfy both rules' conditions.
// Conditions on different arguments are independent, and a rule has at
// most one per argument, so the rules are disjoint when the conditions on
// one argument are. It answers false where it cannot tell (a masked
// comparison against a range), which makes the caller refuse.
func disjoint(a, b []Arg) bool {
	for _, x := range a {
		for _, y := range b {
			if x.Index == y.Index && argsDisjoint(x, y) {
				return true
			}
		}
	}
	return false
}

// argSet is the values one condition accepts: a range [lo, hi] (empty when
// lo > hi), every value but ne, or the values whose bits under mask are
// bits.
type argSet struct {
	kind       int // rangeSet, notEqual or maskedSet
	lo, hi     uint64
	ne         uint64
	mask, bits uint64
}

const (
	rangeSet = iota
	notEqual
	maskedSet
)

func setOf(a Arg) argSet {
	const max = ^uint64(0)
	switch a.Op {
	case OpEQ:
		return argSet{kind: rangeSet, lo: a.Value, hi: a.Value}
	case OpNE:
		return argSet{kind: notEqual, ne: a.Value}
	case OpLT:
		if a.Value == 0 {
			return argSet{kind: rangeSet, lo: 1, hi: 0}
		}
		return argSet{kind: rangeSet, lo: 0, hi: a.Value - 1}
	case OpLE:
		return argSet{kind: rangeSet, lo: 0, hi: a.Value}
	case OpGE:
		return argSet{kind: rangeSet, lo: a.Value, hi: max}
	case OpGT:
		if a.Value == max {
			return argSet{kind: rangeSet, lo: 1, hi: 0}
		}
		return argSet{kind: rangeSet, lo: a.Value + 1, hi: max}
	}
	return argSet{kind: maskedSet, mask: a.Value, bits: a.ValueTwo & a.Value}
}

func argsDisjoint(x, y Arg) bool {
	a, b := setOf(x), setOf(y)
	if a.kind > b.kind {
		a, b = b, a
	}
	empty := func(s argSet) bool { return s.kind == rangeSet && s.lo > s.hi }
	if empty(a) || empty(b) {
		return true
	}
	switch {
	case a.kind == rangeSet && b.kind == rangeSet:
		return max(a.lo, b.lo) > min(a.hi, b.hi)
	case a.kind == rangeSet && b.kind == notEqual:
		return a.lo == a.hi && a.lo == b.ne
	case a.kind == rangeSet && b.kind == maskedSet:
		// Decided for a single value only.
		return a.lo == a.hi && a.lo&b.mask != b.bits
	case a.kind == notEqual && b.kind == notEqual:
		return false
	case a.kind == notEqual && b.kind == maskedSet:
		// A full mask accepts one value.
		return b.mask == ^uint64(0) && b.bits == a.ne
	}
	return (a.bits^b.bits)&a.mask&b.mask != 0
}

// describeAction names an action with its errno, as in "errno 1".
func describeAction(a Action) string {
	if a.Kind == ActErrno || a.Kind == ActTrace {
		return fmt.Sprintf("%v %d", a.Kind, a.Errno)
	}
	return a.Kind.String()
}
