package nsrun

// ownRules are the rules nsrun adds to a policy on Linux: the private
// /tmp, /run and /var/run, the resolver file, a private home.
func ownRules(p *Policy, root string) []canonRule {
	if p.Isolation != IsolationFull {
		return nil
	}
	rules := internalRules(root, p.Net == NetHost)
	if p.Home == HomePrivate {
		rules = append(rules, canonRule{Rule: Rule{Path: privateHome, Access: Tmpfs, Source: SourceInternal}, Canon: privateHome, Dir: true, internal: true})
	}
	return rules
}
