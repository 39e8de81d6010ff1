// Package fdpass sends descriptors with a few bytes of data over a unix
// socket (SCM_RIGHTS), one message each: on a SOCK_SEQPACKET socket a
// message and its descriptors arrive together or not at all.
package fdpass

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// ErrClosed is the other end of the socket gone.
var ErrClosed = errors.New("fdpass: the other end is closed")

// Send sends data and the descriptors fds as one message.
func Send(sock int, data []byte, fds ...int) error {
	var oob []byte
	if len(fds) > 0 {
		oob = unix.UnixRights(fds...)
	}
	if len(data) == 0 {
		data = []byte{0} // a message without data carries no descriptors
	}
	for {
		err := unix.Sendmsg(sock, data, oob, nil, 0)
		if err == unix.EINTR {
			continue
		}
		if err == unix.EPIPE || err == unix.ECONNRESET {
			return ErrClosed
		}
		if err != nil {
			return fmt.Errorf("sendmsg: %w", err)
		}
		return nil
	}
}

// Recv receives one message into buf and at most maxFDs descriptors, which
// are close-on-exec. A message that carried more descriptors than that is
// refused and every descriptor it carried is closed.
func Recv(sock int, buf []byte, maxFDs int) (n int, fds []int, err error) {
	oob := make([]byte, unix.CmsgSpace(4*max(maxFDs, 1)))
	for {
		var oobn, flags int
		n, oobn, flags, _, err = unix.Recvmsg(sock, buf, oob, unix.MSG_CMSG_CLOEXEC)
		if err == unix.EINTR {
			continue
		}
		if err == unix.ECONNRESET {
			return 0, nil, ErrClosed
		}
		if err != nil {
			return 0, nil, fmt.Errorf("recvmsg: %w", err)
		}
		if n == 0 && oobn == 0 {
			return 0, nil, ErrClosed
		}
		if oobn > 0 {
			msgs, perr := unix.ParseSocketControlMessage(oob[:oobn])
			if perr != nil {
				return 0, nil, fmt.Errorf("control message: %w", perr)
			}
			for i := range msgs {
				got, perr := unix.ParseUnixRights(&msgs[i])
				if perr == nil {
					fds = append(fds, got...)
				}
			}
		}
		if flags&unix.MSG_CTRUNC != 0 || len(fds) > maxFDs {
			closeAll(fds)
			return 0, nil, fmt.Errorf("recvmsg: more than %d descriptors", maxFDs)
		}
		return n, fds, nil
	}
}

func closeAll(fds []int) {
	for _, fd := range fds {
		unix.Close(fd)
	}
}
