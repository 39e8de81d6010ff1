package sandbox

import (
	"fmt"
	"io"
	"os"
)

// Streams are the standard streams of a command started in a running
// session (internal/session), taken as a sandbox's first process takes
// its own: an *os.File is passed as it is, nil is /dev/null, anything
// else goes through a pipe copied here.
type Streams struct{ s *stdio }

// NewStreams makes the descriptors for in, out and errOut.
func NewStreams(in io.Reader, out, errOut io.Writer) (*Streams, error) {
	s, err := newStdio(in, out, errOut)
	if err != nil {
		return nil, fmt.Errorf("standard streams: %w", err)
	}
	return &Streams{s: s}, nil
}

// Files are the command's descriptors 0, 1 and 2.
func (st *Streams) Files() [3]*os.File { return st.s.fds }

// Started closes this process's copies of the command's ends, once the
// command holds its own: the copies then end when it (and whatever it
// left holding them) is gone.
func (st *Streams) Started() { st.s.closeChildEnds() }

// Finish waits for the output to be copied, through awaitIO, which may
// cut the copies short and says whether it did, and returns the first
// error writing it.
func (st *Streams) Finish(awaitIO func(copied <-chan struct{}, cut func()) bool) (cut bool, err error) {
	cut = awaitIO(st.s.copied(), st.s.cut)
	if werr := st.s.wait(); werr != nil {
		err = fmt.Errorf("nsrun: copy output: %w", werr)
	}
	return cut, err
}

// Abort releases the streams of a command that never started.
func (st *Streams) Abort() {
	st.s.closeChildEnds()
	st.s.cut()
	_ = st.s.wait()
}
