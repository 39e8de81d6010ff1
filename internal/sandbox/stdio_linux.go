package sandbox

import (
	"errors"
	"io"
	"os"
	"reflect"
	"sync"
)

// stdio gives the init descriptors for a Cmd's Stdin, Stdout and Stderr:
// an *os.File is passed as it is, nil is /dev/null, and anything else goes
// through a pipe copied by a goroutine, as exec.Cmd does.
type stdio struct {
	fds        [3]*os.File
	childEnds  []*os.File // closed once the init has started
	parentEnds []*os.File // closed once the init has exited
	readEnds   []*os.File // the output pipes' ends this process reads
	copying    sync.WaitGroup
	mu         sync.Mutex
	err        error // first error copying output
}

func newStdio(stdin io.Reader, stdout, stderr io.Writer) (*stdio, error) {
	s := &stdio{}
	var err error
	if s.fds[0], err = s.input(stdin); err == nil {
		if s.fds[1], err = s.output(stdout); err == nil {
			if sameWriter(stdout, stderr) {
				s.fds[2] = s.fds[1]
			} else {
				s.fds[2], err = s.output(stderr)
			}
		}
	}
	if err != nil {
		s.closeChildEnds()
		s.closeParentEnds()
		return nil, err
	}
	return s, nil
}

// sameWriter reports whether a and b are one writer given twice, so that
// both streams share one descriptor (one pipe keeps their order). Values of
// an uncomparable type (a func, a struct holding a slice) are never the
// same: comparing them with == would panic, as os/exec knows.
func sameWriter(a, b io.Writer) bool {
	if a == nil || b == nil {
		return false
	}
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	return va.Type() == vb.Type() && va.Comparable() && vb.Comparable() && va.Equal(vb)
}

func (s *stdio) devNull() (*os.File, error) {
	f, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err == nil {
		s.childEnds = append(s.childEnds, f)
	}
	return f, err
}

func (s *stdio) input(r io.Reader) (*os.File, error) {
	if r == nil {
		return s.devNull()
	}
	if f, ok := r.(*os.File); ok {
		return f, nil
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	s.childEnds = append(s.childEnds, pr)
	s.parentEnds = append(s.parentEnds, pw)
	// Not waited for: a reader that never ends must not hold up Wait. The
	// copy stops at its next write once the pipe is closed.
	go func() {
		_, _ = io.Copy(pw, r)
		pw.Close()
	}()
	return pr, nil
}

func (s *stdio) output(w io.Writer) (*os.File, error) {
	if w == nil {
		return s.devNull()
	}
	if f, ok := w.(*os.File); ok {
		return f, nil
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	s.childEnds = append(s.childEnds, pw)
	s.readEnds = append(s.readEnds, pr)
	s.copying.Add(1)
	go func() {
		defer s.copying.Done()
		_, err := io.Copy(w, pr)
		pr.Close()
		if err != nil && !errors.Is(err, os.ErrClosed) {
			s.mu.Lock()
			if s.err == nil {
				s.err = err
			}
			s.mu.Unlock()
		}
	}()
	return pw, nil
}

func (s *stdio) closeChildEnds() {
	for _, f := range s.childEnds {
		f.Close()
	}
	s.childEnds = nil
}

func (s *stdio) closeParentEnds() {
	for _, f := range s.parentEnds {
		f.Close()
	}
	s.parentEnds = nil
}

// copied is closed once the output copies have drained, which happens
// when every process holding the pipes has exited.
func (s *stdio) copied() <-chan struct{} {
	ch := make(chan struct{})
	go func() {
		s.copying.Wait()
		close(ch)
	}()
	return ch
}

// cut ends the output copies where they are (WaitDelay expired): a
// process that escaped the sandbox's end may hold the pipes.
func (s *stdio) cut() {
	for _, f := range s.readEnds {
		f.Close()
	}
}

// wait waits for the output copies to drain, which happens when every
// process of the sandbox has exited.
func (s *stdio) wait() error {
	s.copying.Wait()
	s.closeParentEnds()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}
