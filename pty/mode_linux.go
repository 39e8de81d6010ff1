package pty

import (
	"encoding/binary"
	"fmt"

	"golang.org/x/sys/unix"
)

// Mode is a terminal's termios settings.
type Mode = unix.Termios

// IsTerminal reports whether fd is a terminal.
func IsTerminal(fd int) bool {
	_, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	return err == nil
}

// GetMode reads fd's terminal modes.
func GetMode(fd int) (*Mode, error) {
	return unix.IoctlGetTermios(fd, unix.TCGETS)
}

// SetMode sets fd's terminal modes at once (TCSETS: typed-ahead input is
// kept, unlike TCSAFLUSH).
func SetMode(fd int, m *Mode) error {
	return unix.IoctlSetTermios(fd, unix.TCSETS, m)
}

// Raw is m in raw mode, as cfmakeraw(3) makes it: no line editing, echo,
// signal characters or output processing; bytes pass one by one.
func Raw(m Mode) Mode {
	m.Iflag &^= unix.IGNBRK | unix.BRKINT | unix.PARMRK | unix.ISTRIP | unix.INLCR | unix.IGNCR | unix.ICRNL | unix.IXON
	m.Oflag &^= unix.OPOST
	m.Lflag &^= unix.ECHO | unix.ECHONL | unix.ICANON | unix.ISIG | unix.IEXTEN
	m.Cflag &^= unix.CSIZE | unix.PARENB
	m.Cflag |= unix.CS8
	m.Cc[unix.VMIN], m.Cc[unix.VTIME] = 1, 0
	return m
}

// ForegroundOf returns the foreground process group of the terminal fd,
// which must be the caller's controlling terminal (or a pty master).
func ForegroundOf(fd int) (int, error) {
	return unix.IoctlGetInt(fd, unix.TIOCGPGRP)
}

// IsControlling reports whether fd is the calling process's controlling
// terminal (TIOCGSID answers only for that one).
func IsControlling(fd int) bool {
	sid, err := unix.IoctlGetInt(fd, unix.TIOCGSID)
	if err != nil {
		return false
	}
	own, err := unix.Getsid(0)
	return err == nil && sid == own
}

// EncodeMode is m as bytes, for a process built from the same source.
func EncodeMode(m Mode) []byte {
	b, _ := binary.Append(nil, binary.NativeEndian, m)
	return b
}

// DecodeMode is the Mode EncodeMode gave b for.
func DecodeMode(b []byte) (Mode, error) {
	var m Mode
	n, err := binary.Decode(b, binary.NativeEndian, &m)
	if err == nil && n != len(b) {
		err = fmt.Errorf("%d bytes left over", len(b)-n)
	}
	if err != nil {
		return m, fmt.Errorf("terminal modes: %w", err)
	}
	return m, nil
}
