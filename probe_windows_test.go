package nsrun

import (
	"errors"
	"testing"

	win "github.com/nsrun/nsrun/windows"
)

func TestRestrictedTokenProbe(t *testing.T) {
	ok := restrictedTokenProbe([]win.Check{{What: "restricted token"}, {What: "job object"}})
	if !ok.OK || len(ok.Enforced) == 0 || len(ok.NotEnforced) == 0 {
		t.Errorf("a host where every check worked: %+v", ok)
	}
	no := restrictedTokenProbe([]win.Check{{What: "restricted token", Err: errors.New("access is denied")}})
	if no.OK || no.Enforced != nil || no.NotEnforced != nil || no.Detail == "" {
		t.Errorf("a host where the token failed: %+v", no)
	}
}

// TestProbeHostFindsTheBackend: on Windows the probe reports the
// restricted-token backend, not "no sandbox backend".
func TestProbeHostFindsTheBackend(t *testing.T) {
	p := ProbeHost()
	if !p.RestrictedToken.OK {
		t.Fatalf("restricted token: %s", p.RestrictedToken.Detail)
	}
	if p.UserNamespaces.Detail == ErrUnsupported.Error() {
		t.Errorf("the probe still says %q", ErrUnsupported)
	}
}
