package pty

import (
	"runtime"

	"golang.org/x/sys/unix"
)

// WithSIGTTOUBlocked runs f with SIGTTOU blocked on its thread, which lets
// a background process group change its terminal instead of being stopped
// (and keeps a PID namespace's init, which ignores the signal, from
// retrying for ever). The mask is per thread, so the thread is locked.
func WithSIGTTOUBlocked(f func()) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var set, old unix.Sigset_t
	set.Val[0] = 1 << (uint(unix.SIGTTOU) - 1)
	if unix.PthreadSigmask(unix.SIG_BLOCK, &set, &old) != nil {
		return
	}
	f()
	_ = unix.PthreadSigmask(unix.SIG_SETMASK, &old, nil)
}
