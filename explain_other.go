//go:build !linux

package nsrun

// Effect returns ErrUnsupported: this system has no backend yet.
func (p *Policy) Effect() (*Effect, error) { return nil, ErrUnsupported }
