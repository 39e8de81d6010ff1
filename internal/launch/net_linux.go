package launch

import (
	"fmt"
	"net/netip"

	"github.com/nsrun/nsrun/netproxy"
	"github.com/nsrun/nsrun/ns"
)

// NetSockFD is the init's end of the socket over which it makes sockets in
// the sandbox's network namespace for nsrun (a filtered network only).
const NetSockFD = 6

// serveSockets runs the init's socket factory; the channel says when
// nsrun's listeners are in place (nil) or that nsrun went away first.
func serveSockets() <-chan error {
	ready := make(chan error, 1)
	go netproxy.ServeSockets(NetSockFD, func(err error) { ready <- err })
	return ready
}

// addLoopbackAddrs gives lo the addresses of address rules, in the init.
// One it cannot add (IPv6 turned off) stays reachable through the proxy.
func addLoopbackAddrs(addrs []string, step func(string)) {
	for _, s := range addrs {
		a, err := netip.ParseAddr(s)
		if err == nil {
			err = ns.AddLoopbackAddress(a)
		}
		if err != nil {
			step(fmt.Sprintf("lo address %s not added: %v", s, err))
		}
	}
}
