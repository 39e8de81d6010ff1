package netproxy

import "net/netip"

// fakeAddrs hands out one loopback address of fakeNet per allowed name,
// for the life of a sandbox, and maps each back to its name. Not safe for
// concurrent use.
type fakeAddrs struct {
	next   netip.Addr
	max    int
	byName map[string]netip.Addr
	byAddr map[netip.Addr]string
}

// fakeNet holds the names' addresses: all of 127.0.0.0/8 leads to lo in
// a network namespace, so they need no route, and 127.0.0.1 stays free.
var fakeNet = netip.MustParsePrefix("127.1.0.0/16")

func newFakeAddrs(max int) *fakeAddrs {
	return &fakeAddrs{next: fakeNet.Addr().Next(), max: max, byName: map[string]netip.Addr{}, byAddr: map[netip.Addr]string{}}
}

// get returns name's address, allocating one if it has none (fresh is
// then true); ok is false when the range or the limit is used up.
func (f *fakeAddrs) get(name string) (a netip.Addr, fresh, ok bool) {
	if a, ok := f.byName[name]; ok {
		return a, false, true
	}
	if len(f.byName) >= f.max || !fakeNet.Contains(f.next) || f.next == netip.MustParseAddr("127.1.255.255") {
		return netip.Addr{}, false, false
	}
	a = f.next
	f.next = f.next.Next()
	f.byName[name], f.byAddr[a] = a, name
	return a, true, true
}

// name returns the name a was handed out for, or "".
func (f *fakeAddrs) name(a netip.Addr) string { return f.byAddr[a] }
