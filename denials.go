package nsrun

import (
	"fmt"
	"math"
	"net"
	"strconv"
	"sync"
)

// maxDenials bounds the distinct denials a sandbox's report lists: a
// payload that floods them costs a count, not memory.
const maxDenials = 1000

// denialKey is what makes two denials the same entry.
type denialKey struct{ op, path, addr, errno, rule string }

// denialLog keeps the distinct denials of a sandbox, counted and capped.
type denialLog struct {
	mu      sync.Mutex
	index   map[denialKey]int
	entries []Denial
	dropped int
}

func newDenialLog() *denialLog { return &denialLog{index: map[denialKey]int{}, entries: []Denial{}} }

// add counts d in its entry, or lists it while fewer than maxDenials are.
// Counts saturate.
func (l *denialLog) add(d Denial) {
	l.mu.Lock()
	defer l.mu.Unlock()
	k := denialKey{d.Operation, d.Path, d.Address, d.Errno, d.Rule}
	if i, ok := l.index[k]; ok {
		if l.entries[i].Count < math.MaxInt32 {
			l.entries[i].Count++
		}
		return
	}
	if len(l.entries) >= maxDenials {
		if l.dropped < math.MaxInt32 {
			l.dropped++
		}
		return
	}
	d.Count = 1
	l.index[k] = len(l.entries)
	l.entries = append(l.entries, d)
}

// addCount counts d n times.
func (l *denialLog) addCount(d Denial, n int) {
	for ; n > 0; n-- {
		l.add(d)
	}
}

// drop counts n denials that were not kept.
func (l *denialLog) drop(n int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.dropped+n < math.MaxInt32 {
		l.dropped += n
	} else {
		l.dropped = math.MaxInt32
	}
}

// list is a copy of the entries and the number dropped.
func (l *denialLog) list() ([]Denial, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Denial{}, l.entries...), l.dropped
}

// DenialSummary is the short account of what a sandbox refused, one line
// per distinct denial and per host the filtered network refused, with the
// option that would allow it where there is one; nil when nothing was
// refused.
func DenialSummary(r *Report) []string {
	var out []string
	for _, d := range r.Denials {
		what := d.Path
		if what == "" {
			what = d.Address
		}
		line := fmt.Sprintf("denied %dx: %s", d.Count, d.Operation)
		if what != "" {
			line += " " + what
		}
		line += fmt.Sprintf(": %s (%s)", d.Errno, d.Rule)
		if d.Allow != "" {
			line += "; add " + d.Allow
		}
		out = append(out, line)
	}
	if r.DenialsDropped > 0 {
		out = append(out, fmt.Sprintf("denied: %d more not listed (over %d distinct)", r.DenialsDropped, maxDenials))
	}
	if r.Network != nil && r.Denials != nil {
		for _, n := range r.Network.Denied {
			out = append(out, fmt.Sprintf("denied %dx: connect %s: refused by the filtered network (network.denied); add --allow-host %s",
				n.Count, hostPort(n), hostPort(n)))
		}
	}
	return out
}

func hostPort(n NetworkCount) string {
	if n.Port == 0 {
		return n.Host
	}
	return net.JoinHostPort(n.Host, strconv.Itoa(n.Port))
}
