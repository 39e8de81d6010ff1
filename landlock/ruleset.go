package landlock

import "strings"

// PortRule allows Access on a port.
type PortRule struct {
	Port   uint16
	Access Net
}

// Ruleset is what Apply enforces: the handled rights and the rules that
// grant some of them back.
type Ruleset struct {
	Handled Request
	Paths   []PathRule
	Ports   []PortRule
}

// Allowed is what rules give path (clean and absolute): Landlock adds the
// rights of every rule on the path and its ancestors.
func Allowed(rules []PathRule, path string) FS {
	var fs FS
	for _, r := range rules {
		if r.Path == path || r.Path == "/" || strings.HasPrefix(path, r.Path+"/") {
			fs |= r.Access
		}
	}
	return fs
}
