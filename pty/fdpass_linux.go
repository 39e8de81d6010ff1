package pty

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// SendFD sends one descriptor over the unix socket sock.
func SendFD(sock int, f *os.File) error {
	if err := unix.Sendmsg(sock, []byte{0}, unix.UnixRights(int(f.Fd())), nil, 0); err != nil {
		return fmt.Errorf("send %s: %w", f.Name(), err)
	}
	return nil
}

// RecvFD receives the one descriptor SendFD sent over sock, close-on-exec.
func RecvFD(sock int, name string) (*os.File, error) {
	var b [1]byte
	oob := make([]byte, unix.CmsgSpace(4))
	for {
		n, oobn, _, _, err := unix.Recvmsg(sock, b[:], oob, unix.MSG_CMSG_CLOEXEC)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("receive %s: %w", name, err)
		}
		if n == 0 {
			return nil, fmt.Errorf("receive %s: the sender is gone", name)
		}
		msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
		if err != nil || len(msgs) != 1 {
			return nil, fmt.Errorf("receive %s: no descriptor came", name)
		}
		fds, err := unix.ParseUnixRights(&msgs[0])
		if err != nil || len(fds) != 1 {
			for _, fd := range fds {
				unix.Close(fd)
			}
			return nil, errors.Join(fmt.Errorf("receive %s: want one descriptor", name), err)
		}
		return os.NewFile(uintptr(fds[0]), name), nil
	}
}
