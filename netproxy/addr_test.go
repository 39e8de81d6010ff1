package netproxy

import (
	"net/netip"
	"testing"
)

func TestClass(t *testing.T) {
	for addr, want := range map[string]string{
		"8.8.8.8":          ClassPublic,
		"140.82.112.3":     ClassPublic,
		"2606:4700::1111":  ClassPublic,
		"0.0.0.0":          ClassUnspecified,
		"0.1.2.3":          ClassUnspecified,
		"::":               ClassUnspecified,
		"127.0.0.1":        ClassLoopback,
		"127.1.0.5":        ClassLoopback,
		"::1":              ClassLoopback,
		"::ffff:127.0.0.1": ClassLoopback,
		"169.254.169.254":  ClassLinkLocal,
		"fe80::1":          ClassLinkLocal,
		"10.0.0.1":         ClassPrivate,
		"172.16.0.1":       ClassPrivate,
		"172.31.255.255":   ClassPrivate,
		"172.32.0.1":       ClassPublic,
		"192.168.1.1":      ClassPrivate,
		"100.64.0.1":       ClassPrivate,
		"100.128.0.1":      ClassPublic,
		"fd00::1":          ClassPrivate,
		"fc00::1":          ClassPrivate,
		"224.0.0.1":        ClassMulticast,
		"ff02::1":          ClassMulticast,
		"255.255.255.255":  ClassReserved,
		"240.0.0.1":        ClassReserved,
		"192.0.2.1":        ClassReserved,
		"198.18.0.1":       ClassReserved,
		"2001:db8::1":      ClassReserved,
		"fec0::1":          ClassReserved,
		"::10.0.0.1":       ClassReserved,
		"64:ff9b::a00:1":   ClassPrivate,  // NAT64 of 10.0.0.1
		"64:ff9b::808:808": ClassPublic,   // NAT64 of 8.8.8.8
		"2002:7f00:1::":    ClassLoopback, // 6to4 of 127.0.0.1
		"2002:a9fe:a9fe::": ClassLinkLocal,
	} {
		if got := Class(netip.MustParseAddr(addr)); got != want {
			t.Errorf("Class(%s) = %s, want %s", addr, got, want)
		}
	}
}
