//go:build !linux

package nsrun

import (
	"context"
	"errors"
)

//lint:ignore U1000 the field it types is the Linux backend's
type sysSession struct{}

type cmdSession struct{ s *Session }

var errNoSessions = errors.New("nsrun: sessions are supported on Linux only")

func startSession(context.Context, *Policy) (*Session, error) { return nil, errNoSessions }
func (s *Session) close() error                               { return errNoSessions }
func (s *Session) report() *Report                            { return &Report{} }

func (c *Cmd) checkSession() error {
	if c.session != nil {
		return errNoSessions
	}
	return nil
}

func (s *Session) environ() []string { return nil }

func (s *Session) warnings() []string { return nil }

func (s *Session) done() <-chan struct{} {
	ch := make(chan struct{})
	close(ch)
	return ch
}
