package netproxy

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"testing"
)

func TestParseRule(t *testing.T) {
	for _, tc := range []struct {
		in    string
		want  []string // Strings()
		err   string   // part of the error, if one
		isIP  bool
		wild  bool
		match []string // names that match
		miss  []string // names that do not
	}{
		{in: "github.com", want: []string{"github.com:80", "github.com:443"}, match: []string{"github.com"}, miss: []string{"api.github.com", "github.com.evil.org", "evilgithub.com", "com"}},
		{in: "GitHub.COM.", want: []string{"github.com:80", "github.com:443"}, match: []string{"github.com"}},
		{in: "registry.example.com:8443", want: []string{"registry.example.com:8443"}},
		{in: "*.example.org", want: []string{"*.example.org:80", "*.example.org:443"}, wild: true,
			match: []string{"a.example.org", "a.b.example.org"}, miss: []string{"example.org", "aexample.org", "example.org.evil.net", "a.example.org.evil.net"}},
		{in: "*.example.org:22", want: []string{"*.example.org:22"}, wild: true},
		{in: "10.0.0.5", want: []string{"10.0.0.5:80", "10.0.0.5:443"}, isIP: true, miss: []string{"10.0.0.5"}},
		{in: "10.0.0.5:5432", want: []string{"10.0.0.5:5432"}, isIP: true},
		{in: "10.1.2.3/8:5432", want: []string{"10.0.0.0/8:5432"}, isIP: true},
		{in: "::1", want: []string{"[::1]:80", "[::1]:443"}, isIP: true},
		{in: "[::1]:8080", want: []string{"[::1]:8080"}, isIP: true},
		{in: "fd00::/8", want: []string{"[fd00::/8]:80", "[fd00::/8]:443"}, isIP: true},
		{in: "[fd00::/8]:443", want: []string{"[fd00::/8]:443"}, isIP: true},
		{in: "::ffff:10.0.0.1", want: []string{"10.0.0.1:80", "10.0.0.1:443"}, isIP: true},
		{in: "under_score.internal", want: []string{"under_score.internal:80", "under_score.internal:443"}},
		{in: "", err: "empty pattern"},
		{in: "https://github.com", err: "not a URL"},
		{in: "github.com:", err: "want 1 to 65535"},
		{in: "github.com:0", err: "want 1 to 65535"},
		{in: "github.com:65536", err: "want 1 to 65535"},
		{in: "github.com:https", err: "want 1 to 65535"},
		{in: ":443", err: "no host"},
		{in: "*", err: "every host"},
		{in: "*:443", err: "every host"},
		{in: "*.", err: "empty host name"},
		{in: "a.*.com", err: "leading"},
		{in: "*a.com", err: "leading"},
		{in: "**.com", err: "leading"},
		{in: "github.com/x", err: "not an address range"},
		{in: "gith ub.com", err: "not allowed in a host name"},
		{in: "bücher.de", err: "punycode"},
		{in: "-a.com", err: "starts or ends"},
		{in: "a..com", err: "empty"},
		{in: "10.1", err: "neither an IP address nor a host name"},
		{in: "1.2.3.4.5", err: "neither an IP address nor a host name"},
		{in: "::1:443", want: []string{"[::1:443]:80", "[::1:443]:443"}, isIP: true}, // an address, not ::1 port 443
		{in: "fe80::1%eth0", err: "zone"},
		{in: "[github.com]:443", err: "only an IPv6 address"},
		{in: "[::1", err: "unclosed"},
		{in: "[::1]443", err: "want :PORT"},
		{in: "1:2:3", err: "not an IPv6 address"},
		{in: strings.Repeat("a", 64) + ".com", err: "longer than 63"},
		{in: strings.Repeat("a.", 127) + "com", err: "longer than 253"},
	} {
		r, err := ParseRule(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseRule(%q): error %v, want one saying %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseRule(%q): %v", tc.in, err)
			continue
		}
		if got := r.Strings(); !slices.Equal(got, tc.want) {
			t.Errorf("ParseRule(%q) = %v, want %v", tc.in, got, tc.want)
		}
		if r.IsAddr() != tc.isIP || r.Wildcard != tc.wild {
			t.Errorf("ParseRule(%q): address %v wildcard %v", tc.in, r.IsAddr(), r.Wildcard)
		}
		for _, n := range tc.match {
			if !r.MatchName(n) {
				t.Errorf("%q does not match %q", tc.in, n)
			}
		}
		for _, n := range tc.miss {
			if r.MatchName(n) {
				t.Errorf("%q matches %q", tc.in, n)
			}
		}
	}
}

func TestRuleMatchAddr(t *testing.T) {
	r, err := ParseRule("10.0.0.0/8:5432")
	if err != nil {
		t.Fatal(err)
	}
	for addr, want := range map[string]bool{"10.1.2.3": true, "::ffff:10.1.2.3": true, "11.0.0.1": false, "fd00::1": false} {
		if got := r.MatchAddr(netip.MustParseAddr(addr)); got != want {
			t.Errorf("10.0.0.0/8 holds %s: %v, want %v", addr, got, want)
		}
	}
	if !r.HasPort(5432) || r.HasPort(443) {
		t.Error("ports")
	}
}

func TestPolicy(t *testing.T) {
	p, err := ParsePolicy([]string{"github.com", "*.github.com:22", "registry.test:8443", "127.0.0.1:9000"}, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		ports []uint16
	}{
		{"github.com", []uint16{80, 443}},
		{"api.github.com", []uint16{22}},
		{"registry.test", []uint16{8443}},
		{"example.com", nil},
		{"127.0.0.1", nil}, // an address rule allows no name
	} {
		if got := p.NamePorts(tc.name); !slices.Equal(got, tc.ports) {
			t.Errorf("NamePorts(%s) = %v, want %v", tc.name, got, tc.ports)
		}
	}
	if !p.AllowsName("github.com", 443) || p.AllowsName("github.com", 22) || !p.AllowsName("a.github.com", 22) {
		t.Error("AllowsName")
	}
	lo := netip.MustParseAddr("127.0.0.1")
	if !p.AllowsAddr(lo, 9000) || p.AllowsAddr(lo, 9001) {
		t.Error("AllowsAddr")
	}
	pub, priv, meta := netip.MustParseAddr("140.82.112.3"), netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("169.254.169.254")
	ok, why := p.Usable([]netip.Addr{priv, pub}, 443)
	if !slices.Equal(ok, []netip.Addr{pub}) || why == "" {
		t.Errorf("Usable keeps %v (%s)", ok, why)
	}
	if ok, why := p.Usable([]netip.Addr{meta}, 80); len(ok) != 0 || !strings.Contains(why, "169.254.169.254, a link-local address") {
		t.Errorf("metadata address usable: %v %q", ok, why)
	}
	if ok, _ := p.Usable([]netip.Addr{lo}, 9000); len(ok) != 1 {
		t.Error("an address rule lets a name lead to its address")
	}
	if ok, _ := p.Usable([]netip.Addr{lo}, 9001); len(ok) != 0 {
		t.Error("an address rule for another port lets a name lead to the address")
	}
	p.AllowPrivate = true
	if ok, _ := p.Usable([]netip.Addr{priv, meta, lo}, 443); len(ok) != 3 {
		t.Error("AllowPrivate")
	}
	if _, err := ParsePolicy([]string{"ok.com", ""}, false); err == nil || !strings.Contains(err.Error(), `"": empty pattern`) {
		t.Errorf("bad pattern: %v", err)
	}
}

func TestHostAddr(t *testing.T) {
	for _, tc := range []struct{ in, addr, name string }{
		{"GitHub.com.", "", "github.com"},
		{"[::1]", "::1", ""},
		{"::ffff:127.0.0.1", "127.0.0.1", ""},
		{"10.0.0.1", "10.0.0.1", ""},
	} {
		a, n, err := hostAddr(tc.in)
		if err != nil || n != tc.name || tc.addr != "" && a.String() != tc.addr || tc.addr == "" && a.IsValid() {
			t.Errorf("hostAddr(%q) = %v %q %v", tc.in, a, n, err)
		}
	}
	for _, bad := range []string{"", "[github.com]", "fe80::1%lo", "a b", "2130706433"} {
		if _, _, err := hostAddr(bad); err == nil {
			t.Errorf("hostAddr(%q) accepted", bad)
		}
	}
}

// FuzzParseRule: any pattern is a rule or an error; a rule written back
// (Strings) reads as the same rule, port by port.
func FuzzParseRule(f *testing.F) {
	for _, s := range []string{"github.com", "*.example.org:22", "10.0.0.0/8:5432", "[fd00::/8]:443", "::1", "GitHub.COM."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRule(s)
		if err != nil {
			return
		}
		for i, w := range r.Strings() {
			back, err := ParseRule(w)
			if err != nil || back.Pattern() != r.Pattern() || len(back.Ports) != 1 || back.Ports[0] != r.Ports[i] || back.Wildcard != r.Wildcard {
				t.Fatalf("%q: rule %+v written as %q reads as %+v, %v", s, r, w, back, err)
			}
		}
	})
}

func TestCaptured(t *testing.T) {
	p, err := ParsePolicy([]string{"github.com", "10.0.0.5:5432", "10.0.0.5:6379", "10.0.0.0/8", "127.0.0.1:9000", "[fd00::1]:443", "127.1.0.3", "0.0.0.0", "224.0.0.1"}, false)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(p.Captured()); got != "[10.0.0.5 127.0.0.1 fd00::1]" {
		t.Errorf("Captured %s", got)
	}
	if got := fmt.Sprint(p.LocalAddrs()); got != "[10.0.0.5 fd00::1]" {
		t.Errorf("LocalAddrs %s", got)
	}
}
