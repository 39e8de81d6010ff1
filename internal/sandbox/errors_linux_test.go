package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"
	"testing"

	"github.com/nsrun/nsrun/internal/launch"
)

// A failure keeps its cause, in nsrun and across the init's status pipe:
// callers branch with errors.Is, not on the text.
func TestErrorKeepsItsCause(t *testing.T) {
	inInit := launch.Failure(launch.ExitSetup, fmt.Errorf("mount /x on /y: %w", syscall.EPERM))
	if inInit.Errno != int(syscall.EPERM) {
		t.Fatalf("the message carries errno %d", inInit.Errno)
	}
	for _, c := range []struct {
		err  *Error
		text string
		is   error
	}{
		{errorOf(inInit), "mount /x on /y: operation not permitted", syscall.EPERM},
		{&Error{Code: launch.ExitSetup, Op: "terminal", Err: fmt.Errorf("open /dev/ptmx: %w", syscall.ENOENT)}, "terminal: open /dev/ptmx: no such file or directory", fs.ErrNotExist},
		{&Error{Code: launch.ExitSetup, Err: syscall.EACCES}, "permission denied", syscall.EACCES},
		{&Error{Code: launch.ExitSetup, Op: "x", Err: syscall.EIO, Msg: "x: input/output error; a hint"}, "x: input/output error; a hint", syscall.EIO},
	} {
		if got := c.err.Error(); got != c.text {
			t.Errorf("Error() = %q, want %q", got, c.text)
		}
		if !errors.Is(c.err, c.is) {
			t.Errorf("%q: errors.Is(%v) is false", c.text, c.is)
		}
	}
	if m := launch.Failure(launch.ExitSetup, errors.New("no errno")); m.Errno != 0 || errorOf(m).Unwrap() != nil {
		t.Errorf("a launch.Failure without an errno got cause %v", errorOf(m).Unwrap())
	}
	if m := launch.Failure(launch.ExitNotFound, errors.New("x: not found")); errorOf(m).Code != launch.ExitNotFound {
		t.Errorf("the init's status is lost: %d", errorOf(m).Code)
	}
}
