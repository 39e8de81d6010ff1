package nsrun

import (
	"errors"
	"fmt"
	"github.com/nsrun/nsrun/internal/launch"
	"github.com/nsrun/nsrun/internal/sandbox"
	"io/fs"
	"syscall"
	"testing"
)

// A failure keeps its cause, in nsrun and across the init's status pipe:
// callers branch with errors.Is, not on the text.
func TestSetupErrorKeepsItsCause(t *testing.T) {
	inInit := launch.Failure(ExitSetup, fmt.Errorf("mount /x on /y: %w", syscall.EPERM))
	if inInit.Errno != int(syscall.EPERM) {
		t.Fatalf("the message carries errno %d", inInit.Errno)
	}
	for _, c := range []struct {
		err  *SetupError
		text string
		is   error
	}{
		{raiseSandbox(&sandbox.Error{Code: inInit.Code, Msg: inInit.Msg, Err: syscall.Errno(inInit.Errno)}).(*SetupError), "mount /x on /y: operation not permitted", syscall.EPERM},
		{&SetupError{Code: ExitSetup, Op: "terminal", Err: fmt.Errorf("open /dev/ptmx: %w", syscall.ENOENT)}, "terminal: open /dev/ptmx: no such file or directory", fs.ErrNotExist},
		{&SetupError{Code: ExitSetup, Err: syscall.EACCES}, "permission denied", syscall.EACCES},
		{&SetupError{Code: ExitSetup, Op: "x", Err: syscall.EIO, Msg: "x: input/output error; a hint"}, "x: input/output error; a hint", syscall.EIO},
	} {
		if got := c.err.Error(); got != c.text {
			t.Errorf("Error() = %q, want %q", got, c.text)
		}
		if !errors.Is(c.err, c.is) {
			t.Errorf("%q: errors.Is(%v) is false", c.text, c.is)
		}
	}
}

// The stages fail with the library's statuses.
func TestStageStatusesAreTheLibrarys(t *testing.T) {
	if launch.ExitSetup != ExitSetup || launch.ExitNotExecutable != ExitNotExecutable || launch.ExitNotFound != ExitNotFound {
		t.Errorf("launch's statuses %d %d %d, the library's %d %d %d",
			launch.ExitSetup, launch.ExitNotExecutable, launch.ExitNotFound, ExitSetup, ExitNotExecutable, ExitNotFound)
	}
}
