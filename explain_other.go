//go:build !linux

package nsrun

// ownRules are the rules nsrun adds to a policy; none where there is no
// backend yet.
func ownRules(p *Policy, root string) []canonRule { return nil }
