package nsrun

import "github.com/nsrun/nsrun/internal/gitguard"

// nestedRepositories warns about, and returns, the repositories the
// payload registered as submodules of a protected one: the host's git
// status in the superproject runs git in each, with its own configuration,
// which no mount could keep from the payload (the index must be writable
// for git to commit).
func (c *Cmd) nestedRepositories(g *gitProtection) []string {
	var out []string
	for _, t := range g.trees {
		nested, err := gitguard.Nested(t, g.known)
		if err != nil {
			c.warnf("git: cannot look for repositories the sandbox registered in %s: %v", t.Index, err)
			continue
		}
		for _, n := range nested {
			c.warnf("git: %s is a repository the sandbox made and registered as a submodule in %s: git status there on the host runs git in it, with its configuration (%s/.git); look at it first", n, t.Dir, n)
		}
		out = append(out, nested...)
	}
	return out
}
