package supervise

import (
	"bytes"

	"golang.org/x/sys/unix"
)

// pageSize bounds each read of a string, so a string that ends just before
// an unmapped page is still read.
const pageSize = 4096

// readMem copies n bytes at addr from the memory of the thread tid: once,
// so what is checked is what is used.
func readMem(tid int, addr uint64, n int) ([]byte, error) {
	if n == 0 {
		return nil, nil
	}
	if addr == 0 {
		return nil, unix.EFAULT
	}
	buf := make([]byte, n)
	got, err := unix.ProcessVMReadv(tid, []unix.Iovec{{Base: &buf[0], Len: uint64(n)}},
		[]unix.RemoteIovec{{Base: uintptr(addr), Len: n}}, 0)
	if err != nil {
		return nil, memErr(err)
	}
	if got != n {
		return nil, unix.EFAULT
	}
	return buf, nil
}

// readString copies the NUL-terminated string at addr, of at most max
// bytes before the NUL (ENAMETOOLONG otherwise).
func readString(tid int, addr uint64, max int) (string, error) {
	if addr == 0 {
		return "", unix.EFAULT
	}
	var out []byte
	for len(out) <= max {
		n := pageSize - int(addr%pageSize)
		chunk := make([]byte, n)
		got, err := unix.ProcessVMReadv(tid, []unix.Iovec{{Base: &chunk[0], Len: uint64(n)}},
			[]unix.RemoteIovec{{Base: uintptr(addr), Len: n}}, 0)
		if err != nil {
			return "", memErr(err)
		}
		if i := bytes.IndexByte(chunk[:got], 0); i >= 0 {
			out = append(out, chunk[:i]...)
			if len(out) > max {
				break
			}
			return string(out), nil
		}
		if got < n {
			return "", unix.EFAULT
		}
		out = append(out, chunk...)
		addr += uint64(n)
	}
	return "", unix.ENAMETOOLONG
}

// memErr is what the caller is told when its memory cannot be read: EFAULT
// for a bad address; EPERM when the supervisor may not read it at all (a
// caller that made itself not dumpable).
func memErr(err error) error {
	if err == unix.EPERM || err == unix.ESRCH {
		return unix.EPERM
	}
	return unix.EFAULT
}
