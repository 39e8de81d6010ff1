package session

import (
	"strings"
	"sync"
)

// Lines is an io.Writer that keeps what is written to it as lines, each
// without prefix where it starts with it; safe for concurrent use. A
// session's init Cmd warns into one: the session has no stderr to print
// to, and its holder passes the lines on.
type Lines struct {
	prefix  string
	mu      sync.Mutex
	lines   []string
	partial string
}

// NewLines returns an empty Lines that removes prefix.
func NewLines(prefix string) *Lines { return &Lines{prefix: prefix} }

func (l *Lines) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	text := l.partial + string(b)
	for {
		line, rest, ok := strings.Cut(text, "\n")
		if !ok {
			break
		}
		l.lines = append(l.lines, strings.TrimPrefix(line, l.prefix))
		text = rest
	}
	l.partial = text
	return len(b), nil
}

// All returns the complete lines written so far.
func (l *Lines) All() []string {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.lines...)
}
