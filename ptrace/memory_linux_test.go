package ptrace

import (
	"encoding/binary"
	"testing"

	"golang.org/x/sys/unix"
)

func TestSockaddr(t *testing.T) {
	in4 := make([]byte, 16)
	binary.NativeEndian.PutUint16(in4, unix.AF_INET)
	binary.BigEndian.PutUint16(in4[2:], 443)
	copy(in4[4:], []byte{192, 0, 2, 1})
	in6 := make([]byte, 28)
	binary.NativeEndian.PutUint16(in6, unix.AF_INET6)
	binary.BigEndian.PutUint16(in6[2:], 80)
	in6[23] = 1
	un := append(binary.NativeEndian.AppendUint16(nil, unix.AF_UNIX), "/run/x.sock\x00junk"...)
	abstract := append(binary.NativeEndian.AppendUint16(nil, unix.AF_UNIX), "\x00name"...)
	for _, c := range []struct {
		b    []byte
		want string
	}{{in4, "192.0.2.1:443"}, {in6, "[::1]:80"}, {un, "/run/x.sock"}, {abstract, "@name"}, {in4[:3], ""}, {nil, ""}} {
		if got := sockaddr(c.b); got != c.want {
			t.Errorf("sockaddr(%x) = %q, want %q", c.b, got, c.want)
		}
	}
}

func TestCallsHaveNumbers(t *testing.T) {
	for _, c := range Calls() {
		nr, ok := number(c.Name)
		if !ok || byNumber(nr) == nil || byNumber(nr).name != c.Name {
			t.Errorf("%s: number %d %v", c.Name, nr, ok)
		}
	}
	if infoFor("openat") == nil || infoFor("nonesuch") != nil {
		t.Error("infoFor")
	}
}
