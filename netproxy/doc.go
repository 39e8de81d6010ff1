// Package netproxy is the sandbox's filtered network, served from outside
// it: a process outside the sandbox's network namespace (nsrun) listens
// there with sockets made inside, and carries each connection the policy
// allows to the real host with its own network and resolver.
//
// Inside the namespace it serves:
//
//   - an HTTP proxy (CONNECT, and absolute-URI requests) and a SOCKS5
//     proxy (CONNECT only) on ProxyAddr, told apart by the first byte;
//   - a DNS stub on DNSAddr (UDP and TCP): an allowed name resolves to an
//     address of its own in 127.1.0.0/16 (all of 127/8 leads to lo in a
//     network namespace), where the server listens on the name's allowed
//     ports, so a client that ignores proxy settings still connects to
//     the name through the server; any other name does not exist;
//   - 127.0.0.1:PORT for each host port, carried to the host's
//     127.0.0.1:PORT.
//
// Guarantees: a connection leaves only to a host and port a rule (or the
// hook) allows; a name leads only to public addresses unless a rule names
// the address or private hosts are allowed; the address checked is the
// address dialled (names are resolved once per connection, so rebinding a
// name between check and use changes nothing); what a client says about
// the host (a Host header, TLS's server name) never overrides what it
// connected to; a refused connection or name is answered at once (403,
// SOCKS "not allowed", NXDOMAIN, or a reset), never left to time out.
// With Config.RefuseAll every host is refused so, with that reason, and
// nothing is resolved or dialled: the server of a sandbox with no
// network. Config.Notice hears, once per host, the refusals a user may
// not expect (an allowed name's refused address; any under RefuseAll).
//
// What it cannot do: it does not read TLS, so an allowed host is allowed
// whole (every repository of a forge; a name on a shared CDN can front for
// other sites there). The addresses of a CIDR rule are reached through
// the proxy only (a rule for one address is listened on inside too). UDP
// leaves the sandbox only as DNS questions the stub answers itself.
//
// Kernel minimums: none beyond a network namespace the caller owns (the
// owner of a user namespace may bind the low ports of its network
// namespaces).
package netproxy
