package plan

import (
	"net/netip"
	"testing"

	"github.com/nsrun/nsrun/netproxy"
)

func TestRefusalLine(t *testing.T) {
	for _, tc := range []struct {
		r    netproxy.Refusal
		want string
	}{
		{netproxy.Refusal{Host: "example.com", Port: 443, Reason: noNetwork},
			"refused example.com:443: the sandbox has no network (--net none); --allow-host example.com lets it through nsrun's filter, --net host gives the sandbox the host's network"},
		{netproxy.Refusal{Host: "example.com", Reason: noNetwork},
			"refused example.com: the sandbox has no network (--net none); --allow-host example.com lets it through nsrun's filter, --net host gives the sandbox the host's network"},
		{netproxy.Refusal{Host: "2001:db8::1", Port: 22, Reason: noNetwork},
			"refused [2001:db8::1]:22: the sandbox has no network (--net none); --allow-host [2001:db8::1] lets it through nsrun's filter, --net host gives the sandbox the host's network"},
		{netproxy.Refusal{Host: "git.corp", Port: 443, Addr: netip.MustParseAddr("10.0.0.5"), Class: netproxy.ClassPrivate},
			"refused git.corp:443: it resolves to 10.0.0.5, a private address, which an allowed name may not lead to; --allow-host 10.0.0.5:443 (that address) or --allow-private-hosts lets it"},
		{netproxy.Refusal{Host: "git.corp", Addr: netip.MustParseAddr("fd00::5"), Class: netproxy.ClassPrivate},
			"refused git.corp: it resolves to fd00::5, a private address, which an allowed name may not lead to; --allow-host [fd00::5] (that address) or --allow-private-hosts lets it"},
	} {
		if got := refusalLine(tc.r); got != tc.want {
			t.Errorf("refusalLine(%+v)\n got %q\nwant %q", tc.r, got, tc.want)
		}
	}
}
