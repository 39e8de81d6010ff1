package watch

import (
	"sync"
	"testing"
	"time"
)

// AwaitIO waits for the output's end, or cuts it WaitDelay after the end,
// or at the end of a delay already started.
func TestAwaitIO(t *testing.T) {
	for _, tc := range []struct {
		name      string
		waitDelay time.Duration
		started   time.Duration // delay started this long ago; 0: none
		drains    bool          // the copying ends by itself, soon
		cut       bool
	}{
		{"no delay, drains", 0, 0, true, false},
		{"delay, drains", time.Hour, 0, true, false},
		{"delay, held open", 20 * time.Millisecond, 0, false, true},
		{"delay already over", time.Hour, 2 * time.Hour, false, true},
	} {
		var e Ending
		if tc.started > 0 {
			e.delayEnds = time.Now().Add(tc.waitDelay - tc.started)
		}
		done := make(chan struct{})
		var once sync.Once
		end := func() { once.Do(func() { close(done) }) }
		closed := false
		if tc.drains {
			time.AfterFunc(10*time.Millisecond, end)
		}
		cut := e.AwaitIO(tc.waitDelay, done, func() { closed = true; end() })
		if cut != tc.cut || closed != tc.cut {
			t.Errorf("%s: cut %v, closed %v", tc.name, cut, closed)
		}
	}
}
