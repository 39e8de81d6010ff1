package pty

import "golang.org/x/sys/unix"

// Size returns the window size of the terminal fd.
func Size(fd int) (rows, cols uint16, err error) {
	ws, err := unix.IoctlGetWinsize(fd, unix.TIOCGWINSZ)
	if err != nil {
		return 0, 0, err
	}
	return ws.Row, ws.Col, nil
}

// SetSize sets the window size of the terminal fd (a pty master sets its
// slave's); the kernel signals SIGWINCH to the terminal's foreground group
// when the size changes, and does nothing when it does not.
func SetSize(fd int, rows, cols uint16) error {
	return unix.IoctlSetWinsize(fd, unix.TIOCSWINSZ, &unix.Winsize{Row: rows, Col: cols})
}
