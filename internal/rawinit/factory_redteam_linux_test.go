package rawinit

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// TestFactoryMalformedRequests feeds the raw factory what nsrun never
// sends: descriptors with a request (one, two, more than its control
// buffer holds), a request too long or too short, an unknown kind. None
// may leave a descriptor in pid 1 or be answered with a socket.
func TestFactoryMalformedRequests(t *testing.T) {
	open := func() int {
		ents, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Fatal(err)
		}
		return len(ents)
	}
	for _, c := range []struct {
		name string
		data []byte
		fds  int
		want int
	}{
		{"a socket", []byte{reqSocket, 2}, 0, facServed},
		{"an unknown kind", []byte{reqSocket, 200}, 0, facServed},
		{"ready", []byte{reqReady}, 0, facReady},
		{"ready with a descriptor", []byte{reqReady}, 1, facEnded},
		{"a request with a descriptor", []byte{reqSocket, 0}, 1, facEnded},
		{"a request with two", []byte{reqSocket, 0}, 2, facEnded},
		{"a request with five", []byte{reqSocket, 0}, 5, facEnded},
		{"one byte", []byte{reqSocket}, 0, facEnded},
		{"another request", []byte{'x', 0}, 0, facEnded},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer unix.Close(p[1])
			b := newBuilder()
			b.factory()
			m := link(b.p)
			var oob []byte
			if c.fds > 0 {
				fds := make([]int, c.fds)
				for i := range fds {
					fds[i] = int(os.Stdin.Fd())
				}
				oob = unix.UnixRights(fds...)
			}
			if err := unix.Sendmsg(p[1], c.data, oob, nil, 0); err != nil {
				t.Fatal(err)
			}
			before := open()
			got := m.serveOne(uintptr(p[0]), 0)
			after := open()
			unix.Close(p[0])
			if got != c.want {
				t.Errorf("serveOne = %d, want %d (errno %d, where %d)", got, c.want, m.facErr[0], m.facErr[1])
			}
			// More is a leak; fewer, another test's goroutines closing
			// theirs meanwhile (the race pass).
			if after > before {
				t.Errorf("%d descriptors open before, %d after", before, after)
			}
			if c.want != facServed {
				return
			}
			buf := make([]byte, 8)
			oob = make([]byte, unix.CmsgSpace(4*4))
			n, oobn, _, _, err := unix.Recvmsg(p[1], buf, oob, unix.MSG_DONTWAIT|unix.MSG_CMSG_CLOEXEC)
			if err != nil || n != 4 {
				t.Fatalf("answer: %d bytes, %v", n, err)
			}
			if oobn > 0 {
				msgs, _ := unix.ParseSocketControlMessage(oob[:oobn])
				for _, msg := range msgs {
					fds, _ := unix.ParseUnixRights(&msg)
					for _, fd := range fds {
						unix.Close(fd)
					}
				}
			}
			if c.data[1] >= facKinds && (oobn != 0 || buf[3] != byte(unix.EINVAL)) {
				t.Errorf("unknown kind: answer % x with %d bytes of control", buf[:4], oobn)
			}
		})
	}
}
