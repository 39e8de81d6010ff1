package gitguard

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A named pipe where .gitmodules or a config is expected is refused, not
// waited on.
func TestFifoNotRead(t *testing.T) {
	ws := canon(t, t.TempDir())
	newRepo(t, ws)
	if err := syscall.Mkfifo(filepath.Join(ws, ".gitmodules"), 0o644); err != nil {
		t.Skip(err)
	}
	done := make(chan *Protection)
	go func() { done <- protect(ws) }()
	select {
	case p := <-done:
		if !contains(rel(ws, p.ReadOnly), ".git/config") {
			t.Errorf("read-only %q", p.ReadOnly)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Protect blocked on a named pipe")
	}
}
