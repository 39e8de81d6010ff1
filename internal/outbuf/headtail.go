// Package outbuf holds the root's Cmd.Output standard error: HeadTail
// keeps the first and the last bytes written to it in memory bounded by
// twice what it keeps, however much is written, and names how much it
// left out between them. It is safe for concurrent writers and imports
// nothing of nsrun.
package outbuf

import (
	"fmt"
	"sync"
)

// HeadTail keeps the first and the last Keep bytes written to it, and
// counts what it left out between them.
type HeadTail struct {
	Keep    int
	head    []byte
	tail    []byte // a ring of Keep bytes once full
	tailAt  int    // where the ring starts
	skipped int64  // bytes that fell out of the ring
	mu      sync.Mutex
}

func (h *HeadTail) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := len(p)
	if room := h.Keep - len(h.head); room > 0 {
		take := min(room, len(p))
		h.head = append(h.head, p[:take]...)
		p = p[take:]
	}
	for len(p) > 0 {
		if len(h.tail) < h.Keep {
			take := min(h.Keep-len(h.tail), len(p))
			h.tail = append(h.tail, p[:take]...)
			p = p[take:]
			continue
		}
		// The ring is full: each byte written replaces the oldest.
		take := min(h.Keep-h.tailAt, len(p))
		copy(h.tail[h.tailAt:], p[:take])
		h.tailAt = (h.tailAt + take) % h.Keep
		h.skipped += int64(take)
		p = p[take:]
	}
	return n, nil
}

// Bytes is the head, a line naming the bytes left out if any were, and
// the tail.
func (h *HeadTail) Bytes() []byte {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := append([]byte{}, h.head...)
	if h.skipped > 0 {
		out = fmt.Appendf(out, "\n... omitting %d bytes ...\n", h.skipped)
	}
	out = append(out, h.tail[h.tailAt:]...)
	return append(out, h.tail[:h.tailAt]...)
}
