package netproxy

import (
	"net/netip"
	"sync"
)

// Address classes that a name's resolution may not lead to unless a rule
// names the address or private hosts are allowed.
const (
	ClassPublic      = "public"
	ClassLoopback    = "loopback"
	ClassLinkLocal   = "link-local" // 169.254.169.254, the cloud metadata service, is one
	ClassPrivate     = "private"    // RFC 1918, CGNAT, IPv6 unique local
	ClassUnspecified = "unspecified"
	ClassMulticast   = "multicast"
	ClassReserved    = "reserved" // documentation, benchmarking, future use, broadcast
)

// classPrefixes are parsed on first use, not at the start of every nsrun
// process.
var classPrefixes = sync.OnceValue(func() []classPrefix {
	return []classPrefix{
		{netip.MustParsePrefix("0.0.0.0/8"), ClassUnspecified}, // "this network": 0.0.0.0 reaches the local host
		{netip.MustParsePrefix("10.0.0.0/8"), ClassPrivate},
		{netip.MustParsePrefix("100.64.0.0/10"), ClassPrivate}, // carrier-grade NAT, shared address space
		{netip.MustParsePrefix("127.0.0.0/8"), ClassLoopback},
		{netip.MustParsePrefix("169.254.0.0/16"), ClassLinkLocal},
		{netip.MustParsePrefix("172.16.0.0/12"), ClassPrivate},
		{netip.MustParsePrefix("192.0.0.0/24"), ClassReserved},
		{netip.MustParsePrefix("192.0.2.0/24"), ClassReserved},
		{netip.MustParsePrefix("192.88.99.0/24"), ClassReserved},
		{netip.MustParsePrefix("192.168.0.0/16"), ClassPrivate},
		{netip.MustParsePrefix("198.18.0.0/15"), ClassReserved},
		{netip.MustParsePrefix("198.51.100.0/24"), ClassReserved},
		{netip.MustParsePrefix("203.0.113.0/24"), ClassReserved},
		{netip.MustParsePrefix("224.0.0.0/4"), ClassMulticast},
		{netip.MustParsePrefix("240.0.0.0/4"), ClassReserved}, // and 255.255.255.255
		{netip.MustParsePrefix("::/128"), ClassUnspecified},
		{netip.MustParsePrefix("::1/128"), ClassLoopback},
		{netip.MustParsePrefix("::/96"), ClassReserved}, // IPv4-compatible, deprecated
		{netip.MustParsePrefix("64:ff9b:1::/48"), ClassPrivate},
		{netip.MustParsePrefix("100::/64"), ClassReserved},
		{netip.MustParsePrefix("2001:db8::/32"), ClassReserved},
		{netip.MustParsePrefix("fc00::/7"), ClassPrivate},
		{netip.MustParsePrefix("fe80::/10"), ClassLinkLocal},
		{netip.MustParsePrefix("fec0::/10"), ClassReserved}, // site-local, deprecated
		{netip.MustParsePrefix("ff00::/8"), ClassMulticast},
	}
})

type classPrefix struct {
	prefix netip.Prefix
	class  string
}

var (
	nat64 = netip.MustParsePrefix("64:ff9b::/96")
	sixTo = netip.MustParsePrefix("2002::/16")
)

// Class says what a is: ClassPublic, or the kind of address that is not.
// An IPv4 address embedded in IPv6 (mapped, NAT64, 6to4) is classed as
// the IPv4 address it leads to.
func Class(a netip.Addr) string {
	a = a.Unmap().WithZone("")
	if a.Is6() {
		b := a.As16()
		switch {
		case nat64.Contains(a):
			return Class(netip.AddrFrom4([4]byte(b[12:16])))
		case sixTo.Contains(a):
			return Class(netip.AddrFrom4([4]byte(b[2:6])))
		}
	}
	best, class := -1, ClassPublic
	for _, c := range classPrefixes() {
		if c.prefix.Addr().BitLen() == a.BitLen() && c.prefix.Contains(a) && c.prefix.Bits() > best {
			best, class = c.prefix.Bits(), c.class
		}
	}
	return class
}
