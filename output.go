package nsrun

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/nsrun/nsrun/internal/outbuf"
)

// Output runs the command and returns its standard output, as exec.Cmd's
// Output does: Stdout must not be set; when Stderr is not set either, the
// standard error (its first and last 16 KiB) goes to the *ExitError's
// Stderr.
func (c *Cmd) Output() ([]byte, error) {
	if c.Stdout != nil {
		return nil, errors.New("nsrun: Stdout already set")
	}
	var stdout bytes.Buffer
	c.Stdout = &stdout
	var stderr *outbuf.HeadTail
	if c.Stderr == nil {
		stderr = &outbuf.HeadTail{Keep: 16 << 10}
		c.Stderr = stderr
	}
	err := c.Run()
	var ee *ExitError
	if stderr != nil && errors.As(err, &ee) {
		ee.Stderr = stderr.Bytes()
	}
	return stdout.Bytes(), err
}

// CombinedOutput runs the command and returns its standard output and
// standard error together; neither may be set.
func (c *Cmd) CombinedOutput() ([]byte, error) {
	if c.Stdout != nil {
		return nil, errors.New("nsrun: Stdout already set")
	}
	if c.Stderr != nil {
		return nil, errors.New("nsrun: Stderr already set")
	}
	var b bytes.Buffer
	c.Stdout, c.Stderr = &b, &b
	err := c.Run()
	return b.Bytes(), err
}

// StdinPipe returns a pipe that is the payload's standard input once it
// starts. Wait closes it after the sandbox is gone; close it sooner to
// give the payload the end of its input.
func (c *Cmd) StdinPipe() (io.WriteCloser, error) {
	if c.Stdin != nil {
		return nil, errors.New("nsrun: Stdin already set")
	}
	if c.started {
		return nil, errors.New("nsrun: StdinPipe after Start")
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("nsrun: StdinPipe: %w", err)
	}
	c.Stdin = pr
	w := &closeOnce{File: pw}
	c.childIO = append(c.childIO, pr)
	c.parentIO = append(c.parentIO, w)
	return w, nil
}

// StdoutPipe returns a pipe that carries the payload's standard output
// once it starts. Wait closes it once the sandbox is gone, so read it to
// its end before calling Wait (and do not use Run with it).
func (c *Cmd) StdoutPipe() (io.ReadCloser, error) { return c.outputPipe("Stdout", &c.Stdout) }

// StderrPipe is StdoutPipe for the standard error.
func (c *Cmd) StderrPipe() (io.ReadCloser, error) { return c.outputPipe("Stderr", &c.Stderr) }

// outputPipe makes the pipe of StdoutPipe or StderrPipe, whose stream is
// w, named name.
func (c *Cmd) outputPipe(name string, w *io.Writer) (io.ReadCloser, error) {
	if *w != nil {
		return nil, errors.New("nsrun: " + name + " already set")
	}
	if c.started {
		return nil, errors.New("nsrun: " + name + "Pipe after Start")
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("nsrun: %sPipe: %w", name, err)
	}
	*w = pw
	r := &closeOnce{File: pr}
	c.childIO = append(c.childIO, pw)
	c.parentIO = append(c.parentIO, r)
	return r, nil
}

// closeOnce is a pipe end that both its user and Wait may close.
type closeOnce struct {
	*os.File
	once sync.Once
	err  error
}

func (c *closeOnce) Close() error {
	c.once.Do(func() { c.err = c.File.Close() })
	return c.err
}
