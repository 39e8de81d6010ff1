package session

import (
	"bytes"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nsrun/nsrun/internal/procfs"
)

// Record is one command of a session as its report lists it.
type Record struct {
	Args    []string
	For     string // whom it ran for: the client that asked, "" for the library's caller
	Pid     int    // inside the session's PID namespace; 0 if it never started
	Started time.Time
	Ended   time.Time // zero while it runs
	Code    int
	Signal  int
	Error   string // why it could not be started
}

// MaxRecords bounds the commands a session's report lists: a session may
// run for days. The first ones are kept; the rest are counted.
const MaxRecords = 10000

// Log is the list of a session's commands; safe for concurrent use.
type Log struct {
	mu      sync.Mutex
	recs    []Record
	dropped int
}

// Begin records a command asked for; it returns its index, or -1 once the
// log is full.
func (l *Log) Begin(args []string, forWhom string, at time.Time) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.recs) >= MaxRecords {
		l.dropped++
		return -1
	}
	l.recs = append(l.recs, Record{Args: append([]string{}, args...), For: forWhom, Started: at})
	return len(l.recs) - 1
}

// Running records the pid the command i runs as.
func (l *Log) Running(i, pid int) {
	l.update(i, func(r *Record) { r.Pid = pid })
}

// End records how command i ended: its status (128+signal for a signal),
// or errMsg when it could not be started.
func (l *Log) End(i, code, signal int, errMsg string, at time.Time) {
	l.update(i, func(r *Record) { r.Code, r.Signal, r.Error, r.Ended = code, signal, errMsg, at })
}

func (l *Log) update(i int, f func(*Record)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if i >= 0 && i < len(l.recs) {
		f(&l.recs[i])
	}
}

// Records returns a copy of the records, and how many were not kept.
func (l *Log) Records() ([]Record, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Record{}, l.recs...), l.dropped
}

// Process is a process of a session's PID namespace.
type Process struct {
	Pid     int      // as the session's init sees it
	HostPid int      // as this process sees it
	Args    []string // its command line; [comm] for one without (a kernel-made or exiting one)
}

// Processes lists the processes in the PID namespace of initPid (a host
// pid), the init itself left out, by their pid inside. It is a snapshot:
// a process may end, or fork, right after it is taken.
func Processes(initPid int) []Process {
	ns, err := os.Readlink("/proc/" + strconv.Itoa(initPid) + "/ns/pid")
	if err != nil {
		return nil
	}
	entries, _ := os.ReadDir("/proc")
	var out []Process
	for _, e := range entries {
		host, err := strconv.Atoi(e.Name())
		if err != nil || host == initPid {
			continue
		}
		if l, err := os.Readlink("/proc/" + e.Name() + "/ns/pid"); err != nil || l != ns {
			continue
		}
		p := Process{HostPid: host, Pid: innerPid(host), Args: cmdline(host)}
		if p.Pid > 0 {
			out = append(out, p)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Pid < out[j].Pid })
	return out
}

// innerPid is the last field of NSpid: the pid in the process's own PID
// namespace; 0 if the process is gone.
func innerPid(host int) int { return lastOf(host, "NSpid") }

// InnerPgid is the process group of the process host (a pid as this
// process sees it) in its own PID namespace, the last field of NSpgid:
// a session's command's pid inside leads the group of all it starts
// (but what leaves the group). 0 if the process is gone.
func InnerPgid(host int) int { return lastOf(host, "NSpgid") }

// lastOf is the last number of field in host's /proc status; 0 if the
// process is gone.
func lastOf(host int, field string) int {
	st, err := procfs.ReadStatus(host)
	if err != nil {
		return 0
	}
	n, _ := st.Int(field, true)
	return n
}

// cmdline is a process's arguments, or [comm] when it shows none.
func cmdline(host int) []string {
	dir := "/proc/" + strconv.Itoa(host) + "/"
	if b, err := os.ReadFile(dir + "cmdline"); err == nil && len(b) > 0 {
		var args []string
		for _, a := range bytes.Split(bytes.TrimSuffix(b, []byte{0}), []byte{0}) {
			args = append(args, string(a))
		}
		return args
	}
	comm, _ := os.ReadFile(dir + "comm")
	return []string{"[" + strings.TrimSpace(string(comm)) + "]"}
}

// Describe names the process pid for a session's report: its pid and
// name, and its parent's, which is who asked (an agent's shell, say).
func Describe(pid int) string {
	comm, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	s := "pid " + strconv.Itoa(pid) + " (" + strings.TrimSpace(string(comm)) + ")"
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return s
	}
	// The fields after the command's name, which may hold spaces and ')'.
	rest := b[bytes.LastIndexByte(b, ')')+1:]
	f := strings.Fields(string(rest))
	if len(f) < 2 {
		return s
	}
	ppid, _ := strconv.Atoi(f[1])
	if ppid <= 0 {
		return s
	}
	comm, _ = os.ReadFile("/proc/" + f[1] + "/comm")
	return s + " of pid " + f[1] + " (" + strings.TrimSpace(string(comm)) + ")"
}
