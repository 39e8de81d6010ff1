package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/internal/fdpass"
	"github.com/nsrun/nsrun/internal/sandbox"
)

// Request is what a client asks a session's holder over the control
// socket; an exec carries its three standard streams.
type Request struct {
	Op     string   `json:"op"` // exec, signal, stop, info
	Args   []string `json:"args,omitempty"`
	Env    []string `json:"env,omitempty"` // K=V set over the session's environment
	Dir    string   `json:"dir,omitempty"`
	Signal int      `json:"signal,omitempty"`
	TTY    bool     `json:"tty,omitempty"`    // the streams are a pty's slave the client relays
	Report bool     `json:"report,omitempty"` // the reply carries the command's report
}

// Reply is the holder's answer: an exec's end (Code), a refusal (Error,
// with Code 125, 126 or 127), or a session's Info.
type Reply struct {
	Code   int             `json:"code"`
	Error  string          `json:"error,omitempty"`
	Info   *Info           `json:"info,omitempty"`
	Report json.RawMessage `json:"report,omitempty"` // an exec's, when asked
	// Warnings, in the answer to stop, are what the session's end found
	// to warn of (its start's were printed by session start).
	Warnings []string `json:"warnings,omitempty"`
}

// Info describes a running session for `nsrun session list`.
type Info struct {
	Name      string `json:"name"`
	Started   int64  `json:"started_unix"`
	Policy    string `json:"policy"`
	Processes int    `json:"processes"`
	RSSKiB    int64  `json:"rss_kib"`
	Running   int    `json:"running_commands"`
	Holder    int    `json:"holder_pid"` // the nsrun process that holds the session
	Init      int    `json:"init_pid"`   // its init, as the host sees it
}

const maxRequest = 1 << 20

// validName: 1 to 64 letters, digits, '.', '_' or '-', starting with a
// letter or a digit. Not a regexp: compiling `[...]{0,63}` at package
// initialization cost every launch 60 KB and 861 allocations (issue 27).
func validName(name string) bool {
	if name == "" || len(name) > 64 {
		return false
	}
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case i > 0 && (c == '.' || c == '_' || c == '-'):
		default:
			return false
		}
	}
	return true
}

// CheckName refuses a name that could not be a file name of its own.
func CheckName(name string) error {
	if !validName(name) {
		return fmt.Errorf("session name %q: use 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit", name)
	}
	return nil
}

// Dir is the calling user's sessions directory, made if needed: 0700,
// the user's, no symlink. It is under XDG_RUNTIME_DIR or /run/user/UID
// when one is the user's, else under the temporary directory.
func Dir() (string, error) {
	uid := os.Getuid()
	var bases []string
	if d := os.Getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(d) {
		bases = append(bases, d)
	}
	bases = append(bases, "/run/user/"+strconv.Itoa(uid))
	for _, b := range bases {
		if ownedPrivate(b, uid, false) {
			return makePrivate([]string{filepath.Join(b, "nsrun"), filepath.Join(b, "nsrun", "sessions")}, uid)
		}
	}
	top := filepath.Join(os.TempDir(), "nsrun-sessions-"+strconv.Itoa(uid))
	return makePrivate([]string{top}, uid)
}

// ownedPrivate says whether dir is a real directory of uid's that no one
// else may write (mode 0700 required when strict).
func ownedPrivate(dir string, uid int, strict bool) bool {
	var st unix.Stat_t
	if unix.Lstat(dir, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR || int(st.Uid) != uid {
		return false
	}
	if strict {
		return st.Mode&0o077 == 0
	}
	return st.Mode&0o022 == 0
}

// makePrivate makes each directory in turn, 0700, and checks it is the
// user's own real directory: one another user made first in a shared
// /tmp is refused, never used.
func makePrivate(dirs []string, uid int) (string, error) {
	for _, d := range dirs {
		if err := os.Mkdir(d, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return "", fmt.Errorf("sessions directory %s: %w", d, err)
		}
		if !ownedPrivate(d, uid, true) {
			return "", fmt.Errorf("sessions directory %s: not a directory of user %d's with mode 0700; remove it", d, uid)
		}
	}
	return dirs[len(dirs)-1], nil
}

// Listener is a session's control socket, held by its holder, with the
// lock that says the session is alive.
type Listener struct {
	Name, Dir string
	fd        int
	lock      *os.File
}

// ErrExists says a live session has the name already.
var ErrExists = errors.New("a session of that name is running")

// Listen claims name: it locks name.lock (a lock left by a killed holder
// is taken over, and its leftovers removed), then binds name.sock.
func Listen(name string) (*Listener, error) {
	if err := CheckName(name); err != nil {
		return nil, err
	}
	dir, err := Dir()
	if err != nil {
		return nil, err
	}
	RemoveStale(dir)
	base := filepath.Join(dir, name)
	lock, err := os.OpenFile(base+".lock", os.O_RDWR|os.O_CREATE|unix.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, fmt.Errorf("session %s: %w", name, err)
	}
	if !sandbox.LockLive(lock) {
		lock.Close()
		return nil, fmt.Errorf("session %s: %w", name, ErrExists)
	}
	_ = os.Remove(base + ".sock")
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err == nil {
		if err = unix.Bind(fd, &unix.SockaddrUnix{Name: base + ".sock"}); err == nil {
			if err = unix.Chmod(base+".sock", 0o600); err == nil {
				err = unix.Listen(fd, 16)
			}
		}
		if err != nil {
			unix.Close(fd)
		}
	}
	if err != nil {
		sandbox.UnlinkLock(lock)
		lock.Close()
		return nil, fmt.Errorf("session %s: control socket %s.sock: %w", name, base, err)
	}
	return &Listener{Name: name, Dir: dir, fd: fd, lock: lock}, nil
}

// Close removes the socket, the description and the lock.
func (l *Listener) Close() {
	base := filepath.Join(l.Dir, l.Name)
	_ = unix.Shutdown(l.fd, unix.SHUT_RDWR)
	unix.Close(l.fd)
	_ = os.Remove(base + ".sock")
	_ = os.Remove(base + ".json")
	sandbox.UnlinkLock(l.lock)
	l.lock.Close()
}

// Describe writes the session's description beside its socket.
func (l *Listener) Describe(info *Info) error {
	b, err := json.Marshal(info)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(l.Dir, l.Name+".json"), b, 0o600)
}

// Peer is a client accepted on the control socket.
type Peer struct {
	fd  int
	PID int
}

// Accept waits for the next client the session may serve: the same user,
// in the holder's PID namespace (no process inside a sandbox with a PID
// namespace of its own). Others are closed unserved.
func (l *Listener) Accept() (*Peer, error) {
	for {
		fd, _, err := unix.Accept4(l.fd, unix.SOCK_CLOEXEC)
		if errors.Is(err, unix.EINTR) || errors.Is(err, unix.ECONNABORTED) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("accept on the control socket: %w", err)
		}
		pid, err := checkPeer(fd)
		if err != nil {
			unix.Close(fd)
			continue
		}
		return &Peer{fd: fd, PID: pid}, nil
	}
}

// checkPeer vouches for the process at the other end of a control
// connection (a client for the holder, the holder for a client; for a
// client's connection the kernel names the process that listened): its
// uid is this process's, its PID namespace is this process's, and it is
// not more confined than this process (no_new_privs where this process has none, or more seccomp
// filters: a process inside a sandbox without a PID namespace of its own,
// such as nsrun's --isolation landlock, has both). What /proc says of its
// pid is taken only if the pid still names the process that connected
// (its pidfd, SO_PEERPIDFD, Linux 6.5, is alive after the reads); before
// 6.5 the pid is trusted as the kernel gave it.
func checkPeer(fd int) (int, error) {
	cred, err := unix.GetsockoptUcred(fd, unix.SOL_SOCKET, unix.SO_PEERCRED)
	if err != nil {
		return 0, err
	}
	if int(cred.Uid) != os.Getuid() {
		return 0, fmt.Errorf("its uid %d is not this user's", cred.Uid)
	}
	if cred.Pid <= 0 {
		return 0, errors.New("it is outside this PID namespace (inside a sandbox?)")
	}
	pidfd, pidfdErr := unix.GetsockoptInt(fd, unix.SOL_SOCKET, soPeerPidfd)
	if pidfdErr == nil {
		defer unix.Close(pidfd)
	}
	pid := strconv.Itoa(int(cred.Pid))
	mine, err1 := os.Readlink("/proc/self/ns/pid")
	theirs, err2 := os.Readlink("/proc/" + pid + "/ns/pid")
	if err1 != nil || err2 != nil || mine != theirs {
		return 0, errors.New("it is in another PID namespace (inside a sandbox?)")
	}
	self, err1 := confinement("self")
	peer, err2 := confinement(pid)
	if err1 != nil || err2 != nil || moreConfined(peer, self) {
		return 0, errors.New("it is more confined than this process (inside a sandbox?)")
	}
	if pidfdErr == nil && unix.PidfdSendSignal(pidfd, 0, nil, 0) != nil {
		return 0, errors.New("it is gone: its pid may name another process")
	}
	return int(cred.Pid), nil
}

// soPeerPidfd is SO_PEERPIDFD (Linux 6.5), the same on every architecture
// but a few that nsrun does not build for.
const soPeerPidfd = 0x4d

// confined is what /proc/PID/status says of a process's confinement.
type confined struct {
	noNewPrivs bool
	filters    int // seccomp filters (Seccomp_filters, Linux 5.9), else 1 for filter mode
}

func confinement(pid string) (confined, error) {
	b, err := os.ReadFile("/proc/" + pid + "/status")
	if err != nil {
		return confined{}, err
	}
	var c confined
	haveCount := false
	for _, line := range strings.Split(string(b), "\n") {
		k, v, _ := strings.Cut(line, ":")
		v = strings.TrimSpace(v)
		switch k {
		case "NoNewPrivs":
			c.noNewPrivs = v == "1"
		case "Seccomp_filters":
			c.filters, _ = strconv.Atoi(v)
			haveCount = true
		case "Seccomp":
			if !haveCount && v == "2" {
				c.filters = 1
			}
		}
	}
	return c, nil
}

// moreConfined says whether peer has a layer the holder has not.
func moreConfined(peer, holder confined) bool {
	return peer.noNewPrivs && !holder.noNewPrivs || peer.filters > holder.filters
}

// Recv reads the client's next request and the descriptors it carries.
func (p *Peer) Recv() (*Request, []*os.File, error) {
	buf := make([]byte, maxRequest)
	n, fds, err := fdpass.Recv(p.fd, buf, 3)
	if err != nil {
		return nil, nil, err
	}
	files := make([]*os.File, len(fds))
	for i, fd := range fds {
		files[i] = os.NewFile(uintptr(fd), "stream")
	}
	var r Request
	if err := json.Unmarshal(buf[:n], &r); err != nil {
		closeAll(files)
		return nil, nil, fmt.Errorf("control request: %w", err)
	}
	return &r, files, nil
}

// Send answers the client.
func (p *Peer) Send(r *Reply) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	return fdpass.Send(p.fd, b)
}

// Close ends the conversation.
func (p *Peer) Close() { unix.Close(p.fd) }

// Client is a connection to a session's holder.
type Client struct{ fd int }

// Dial connects to the calling user's session name.
func Dial(name string) (*Client, error) {
	if err := CheckName(name); err != nil {
		return nil, err
	}
	dir, err := Dir()
	if err != nil {
		return nil, err
	}
	RemoveStale(dir)
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	if err := unix.Connect(fd, &unix.SockaddrUnix{Name: filepath.Join(dir, name+".sock")}); err != nil {
		unix.Close(fd)
		if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ECONNREFUSED) {
			return nil, fmt.Errorf("no session %q of this user's", name)
		}
		return nil, fmt.Errorf("session %s: connect: %w", name, err)
	}
	// The holder vouches for its clients; the client must vouch for the
	// holder the same way, or a payload that may write the sessions
	// directory (a run given the runtime directory or /tmp) could bind a
	// socket of its own there and be sent the next exec's arguments,
	// environment and streams.
	if _, err := checkPeer(fd); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("session %s: %s is not served by a holder of this user's: %w", name, filepath.Join(dir, name+".sock"), err)
	}
	return &Client{fd: fd}, nil
}

// Send sends a request with files as its descriptors.
func (c *Client) Send(r *Request, files ...*os.File) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if len(b) > maxRequest {
		return fmt.Errorf("the request takes %d bytes, over %d", len(b), maxRequest)
	}
	fds := make([]int, len(files))
	for i, f := range files {
		fds[i] = int(f.Fd())
	}
	return fdpass.Send(c.fd, b, fds...)
}

// Recv reads the holder's reply; a holder that went away gives
// fdpass.ErrClosed.
func (c *Client) Recv() (*Reply, error) {
	buf := make([]byte, maxRequest)
	n, _, err := fdpass.Recv(c.fd, buf, 0)
	if err != nil {
		return nil, err
	}
	var r Reply
	if err := json.Unmarshal(buf[:n], &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// Close closes the connection: a command still running is killed.
func (c *Client) Close() { unix.Close(c.fd) }

// Names lists the live sessions in dir.
func Names(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if name, ok := strings.CutSuffix(e.Name(), ".lock"); ok {
			out = append(out, name)
		}
	}
	return out
}

// RemoveStale removes what holders that were killed left in dir: a lock
// nobody holds, and the socket and description beside it.
func RemoveStale(dir string) {
	for _, name := range Names(dir) {
		base := filepath.Join(dir, name)
		f, err := os.OpenFile(base+".lock", os.O_RDWR|unix.O_NOFOLLOW, 0)
		if err != nil {
			continue
		}
		if sandbox.LockLive(f) {
			_ = os.Remove(base + ".sock")
			_ = os.Remove(base + ".json")
			sandbox.UnlinkLock(f)
		}
		f.Close()
	}
}

func closeAll(fs []*os.File) {
	for _, f := range fs {
		f.Close()
	}
}

// PIDNamespaceProcs counts the processes in the PID namespace of pid
// (its init's), and what they hold in memory.
func PIDNamespaceProcs(pid int) (n int, rssKiB int64) {
	ns, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/ns/pid")
	if err != nil {
		return 0, 0
	}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		if l, err := os.Readlink("/proc/" + e.Name() + "/ns/pid"); err != nil || l != ns {
			continue
		}
		n++
		b, _ := os.ReadFile("/proc/" + e.Name() + "/status")
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
				kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
				rssKiB += kb
			}
		}
	}
	return n, rssKiB
}

// SessionInit finds the init of this process's session: its child (or
// the fork helper's) in another PID namespace, 0 if none.
func SessionInit() int {
	mine, _ := os.Readlink("/proc/self/ns/pid")
	var walk func(pid, depth int) int
	walk = func(pid, depth int) int {
		dir := "/proc/" + strconv.Itoa(pid) + "/task/"
		tasks, _ := os.ReadDir(dir)
		for _, t := range tasks {
			b, _ := os.ReadFile(dir + t.Name() + "/children")
			for _, f := range strings.Fields(string(b)) {
				child, _ := strconv.Atoi(f)
				if l, err := os.Readlink("/proc/" + f + "/ns/pid"); err == nil && l != mine {
					return child
				}
				if depth == 0 {
					if got := walk(child, 1); got > 0 {
						return got
					}
				}
			}
		}
		return 0
	}
	return walk(os.Getpid(), 0)
}
