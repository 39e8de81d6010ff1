package sandbox

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/netproxy"
)

// startNetwork starts the server of a filtered network, reaching the
// sandbox's network namespace through the init's socket factory (none for
// the Landlock-only stage, whose proxy is on the host's loopback).
func (s *Sandbox) startNetwork(cfg *netproxy.Config) error {
	if s.netSock != nil {
		fd, err := unix.Dup(int(s.netSock.Fd()))
		if err != nil {
			return fmt.Errorf("dup: %w", err)
		}
		unix.CloseOnExec(fd)
		s.inside = netproxy.NewInside(fd)
		cfg.Inside = s.inside
	}
	srv, err := netproxy.Start(*cfg)
	if err != nil {
		return err
	}
	s.net = srv
	if s.inside != nil {
		return s.inside.Ready()
	}
	return nil
}

// stopNetwork ends the server and returns whether there was one, and its
// counts.
func (s *Sandbox) stopNetwork() (served bool, carried, denied []netproxy.Count) {
	if s.net != nil {
		s.net.Close()
		carried, denied = s.net.Stats()
		served = true
		s.net = nil
	}
	if s.inside != nil {
		s.inside.Close()
		s.inside = nil
	}
	return served, carried, denied
}

// socketPair is the socket between nsrun and the init's factory.
func socketPair() (parent, child *os.File, err error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("socketpair: %w", err)
	}
	return os.NewFile(uintptr(fds[0]), "network"), os.NewFile(uintptr(fds[1]), "network"), nil
}
