package plan

import (
	"math"
	"sync"

	"github.com/nsrun/nsrun/internal/supervise"
	"github.com/nsrun/nsrun/ptrace"
)

// Trace is what the sandbox's tracer tells of every refused call it
// sees: the judge's denial, with the process that made the call, is given
// to keep.
func (j *Judge) Trace(keep func(host int, d Denial)) func(ptrace.Event) {
	return func(ev ptrace.Event) {
		if d, ok := j.Judge(ev); ok {
			d.Pid, d.Argv0 = ev.Process()
			if d.Pid == 0 {
				d.Pid = ev.Pid
			}
			keep(ev.Pid, d)
		}
	}
}

// Refusals judges what the Landlock-only supervisor failed for the
// payload, which its tracer never saw (a user notification outranks a
// trace), and counts it in l, with the dropped it could not keep.
func (j *Judge) Refusals(l *DenialLog, refusals []supervise.Refusal, dropped int) {
	for _, r := range refusals {
		ev, ok := RefusalEvent(r)
		if !ok {
			continue
		}
		if d, ok := j.Judge(ev); ok {
			d.Pid, d.Argv0 = r.Pid, r.Argv0
			l.AddCount(d, r.Count)
		}
	}
	l.Drop(dropped)
}

// denialKey is what makes two denials the same entry.
type denialKey struct{ op, path, addr, errno, rule string }

// DenialLog keeps the distinct denials of a sandbox, counted and capped:
// a payload that floods them costs a count, not memory.
type DenialLog struct {
	mu      sync.Mutex
	max     int
	index   map[denialKey]int
	entries []Denial
	dropped int
}

// NewDenialLog is a log that lists at most max distinct denials.
func NewDenialLog(max int) *DenialLog {
	return &DenialLog{max: max, index: map[denialKey]int{}, entries: []Denial{}}
}

// Add counts d in its entry, or lists it while fewer than the log's
// maximum are. Counts saturate.
func (l *DenialLog) Add(d Denial) {
	l.mu.Lock()
	defer l.mu.Unlock()
	k := denialKey{d.Operation, d.Path, d.Address, d.Errno, d.Rule}
	if i, ok := l.index[k]; ok {
		if l.entries[i].Count < math.MaxInt32 {
			l.entries[i].Count++
		}
		return
	}
	if len(l.entries) >= l.max {
		if l.dropped < math.MaxInt32 {
			l.dropped++
		}
		return
	}
	d.Count = 1
	l.index[k] = len(l.entries)
	l.entries = append(l.entries, d)
}

// AddCount counts d n times.
func (l *DenialLog) AddCount(d Denial, n int) {
	for ; n > 0; n-- {
		l.Add(d)
	}
}

// Drop counts n denials that were not kept.
func (l *DenialLog) Drop(n int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.dropped+n < math.MaxInt32 {
		l.dropped += n
	} else {
		l.dropped = math.MaxInt32
	}
}

// List is a copy of the entries and the number dropped.
func (l *DenialLog) List() ([]Denial, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Denial{}, l.entries...), l.dropped
}

// Merge is one log of logs: what each listed, counted, and what each
// dropped.
func Merge(max int, logs []*DenialLog) *DenialLog {
	all := NewDenialLog(max)
	for _, l := range logs {
		entries, n := l.List()
		for _, d := range entries {
			all.AddCount(d, d.Count)
		}
		all.Drop(n)
	}
	return all
}
