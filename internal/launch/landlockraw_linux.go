package launch

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"golang.org/x/sys/unix"
)

// StageGoChild has the Landlock-only stage start the Go child, the
// reference (NSRUN_INIT=go), instead of the runtime-free one.
const StageGoChild = "go-child"

// RawChildren starts the Landlock-only child without a Go runtime
// (package rawinit): a clone of the stage that runs a list of raw system
// calls compiled from the spec, doing what RunLandlockChild does, in the
// same order, and execs the payload. The stage cannot import it (rawinit
// builds on this package): it is handed to RunLandlockStage.
type RawChildren interface {
	// Supports says why spec needs the Go child, or nil.
	Supports(spec *Spec) error
	// Start clones the child from the calling thread, with its end of
	// the connection (conn) and the ExtraFiles it inherits.
	Start(spec *Spec, conn int) (RawChild, error)
}

// RawChild is a started runtime-free child.
type RawChild interface {
	Pid() int
	// Failure turns what the child reported (errno and step) into the
	// Go child's error: its exit code and message, or, for a refused
	// execve, the path executed (exec true), which the stage explains as
	// the Go child does.
	Failure(errno, step uint32) (code int, msg string, path string, exec bool)
}

// rawRecord is what the raw child writes on its connection: a failure
// (errno and step), or with errno 0 the listener, which comes with it
// (step 1: the filter waits killable).
type rawRecord [2]uint32

// readRawRecord reads one record from the raw child and the descriptor
// sent with it (-1 if none); io.EOF once the child executed the payload.
func readRawRecord(conn int) (rawRecord, int, error) {
	var rec rawRecord
	var b [8]byte
	oob := make([]byte, unix.CmsgSpace(4))
	var n, oobn int
	var err error
	for {
		n, oobn, _, _, err = unix.Recvmsg(conn, b[:], oob, unix.MSG_CMSG_CLOEXEC)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	if err != nil {
		return rec, -1, fmt.Errorf("child message: %w", err)
	}
	fd := -1
	if msgs, err := unix.ParseSocketControlMessage(oob[:oobn]); err == nil && len(msgs) == 1 {
		if fds, err := unix.ParseUnixRights(&msgs[0]); err == nil && len(fds) == 1 {
			fd = fds[0]
		}
	}
	if n == 0 {
		if fd >= 0 {
			unix.Close(fd)
		}
		return rec, -1, io.EOF
	}
	if n != len(b) {
		if fd >= 0 {
			unix.Close(fd)
		}
		return rec, -1, fmt.Errorf("child message: %d bytes of %d", n, len(b))
	}
	rec[0], rec[1] = binary.NativeEndian.Uint32(b[:]), binary.NativeEndian.Uint32(b[4:])
	return rec, fd, nil
}

// rawFailure is the Go child's error for a raw child's failure record.
func rawFailure(spec *Spec, child RawChild, rec rawRecord) (int, error) {
	code, msg, path, exec := child.Failure(rec[0], rec[1])
	if exec {
		err := execError(spec, path, unix.Errno(rec[0]))
		return execCode(err), err
	}
	return code, errors.New(msg)
}

// rawListener reads the raw child's first record: its listener, or why it
// failed before loading it.
func rawListener(spec *Spec, child RawChild, conn int) (listener int, killable bool, code int, err error) {
	rec, fd, err := readRawRecord(conn)
	if err != nil {
		return -1, false, ExitSetup, fmt.Errorf("the Landlock-only child ended before the payload started: %w", err)
	}
	if rec[0] != 0 || fd < 0 {
		if fd >= 0 {
			unix.Close(fd)
		}
		code, err := rawFailure(spec, child, rec)
		return -1, false, code, err
	}
	return fd, rec[1] == 1, 0, nil
}

// rawExecuted waits for the raw child to execute the payload (the
// connection's end of file), or for why it could not.
func rawExecuted(spec *Spec, child RawChild, conn int) (int, error) {
	rec, fd, err := readRawRecord(conn)
	if fd >= 0 {
		unix.Close(fd)
	}
	switch {
	case errors.Is(err, io.EOF):
		return 0, nil
	case err != nil:
		return ExitSetup, err
	}
	return rawFailure(spec, child, rec)
}
