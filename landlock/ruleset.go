package landlock

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
