package supervise

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/seccomp"
)

// Refusal is a call the supervisor failed for the payload, for
// --trace-denials: the payload's own tracer never sees a call its filter
// hands to the supervisor (a user notification outranks a trace).
type Refusal struct {
	Pid   int
	NR    int
	Args  []uint64
	Errno int
	Path  string // the path or descriptor the call named, absolute where it could be made so
	Argv0 string
	Count int
}

// maxRefusals bounds the distinct refusals kept.
const maxRefusals = 1000

// Refusals collects refusals, distinct by call, errno and path, with
// counts; past maxRefusals distinct ones it only counts the rest.
type Refusals struct {
	mu      sync.Mutex
	index   map[string]int
	list    []Refusal
	Dropped int
}

// NewRefusals returns an empty collection.
func NewRefusals() *Refusals { return &Refusals{index: map[string]int{}} }

// List is what was collected.
func (r *Refusals) List() ([]Refusal, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Refusal(nil), r.list...), r.Dropped
}

func (r *Refusals) add(f Refusal) {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := fmt.Sprint(f.NR, "\x00", f.Errno, "\x00", f.Path)
	if i, ok := r.index[k]; ok {
		r.list[i].Count++
		return
	}
	if len(r.list) >= maxRefusals {
		r.Dropped++
		return
	}
	f.Count = 1
	r.index[k] = len(r.list)
	r.list = append(r.list, f)
}

// refused records n, failed with errno, while the payload still waits in
// the call: its path argument is read now.
func (s *Supervisor) refused(n seccomp.Notification, errno unix.Errno) {
	f := Refusal{Pid: int(n.Pid), NR: int(n.Nr), Args: append([]uint64(nil), n.Args[:]...), Errno: int(errno)}
	if c, ok := s.byNR[n.Nr]; ok {
		f.Path = callPath(int(n.Pid), c, n.Args)
	}
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", n.Pid)); err == nil {
		f.Argv0, _, _ = strings.Cut(string(b), "\x00")
	}
	s.cfg.Refusals.add(f)
}

// callPath is the path a call names, joined to its directory descriptor
// or the caller's working directory, or the file its descriptor names.
func callPath(pid int, c call, args [6]uint64) string {
	if c.path != none {
		p, err := readString(pid, args[c.path], unix.PathMax)
		if err != nil {
			return ""
		}
		if filepath.IsAbs(p) {
			return filepath.Clean(p)
		}
		base := fmt.Sprintf("/proc/%d/cwd", pid)
		if c.dirfd != none && int32(args[c.dirfd]) != atFdcwd {
			base = fmt.Sprintf("/proc/%d/fd/%d", pid, int32(args[c.dirfd]))
		}
		if dir, err := os.Readlink(base); err == nil {
			return filepath.Join(dir, p)
		}
		return p
	}
	if c.fd != none {
		if p, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%d", pid, int32(args[c.fd]))); err == nil {
			return p
		}
	}
	return ""
}
