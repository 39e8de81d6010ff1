package absent

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Target is a name that must not appear in Dir.
type Target struct {
	Dir, Name string
	Why       string // what would follow from it, for messages
}

// Path is the target's full path.
func (t Target) Path() string { return t.Dir + "/" + t.Name }

// Found is a target that appeared.
type Found struct {
	Target
	Removed bool   // false when it could not be removed (Err says why)
	Err     error  // why it could not be removed, or the directory was moved
	Kind    string // what it was: "file", "directory", "symlink", ...
}

// Watcher watches directories for targets.
type Watcher struct {
	fd      int
	wake    int            // an eventfd that ends Run
	dirs    map[int32]*dir // set up by Watch, read-only afterwards
	mu      sync.Mutex     // guards what follows and each dir's moved
	found   []Found
	closed  bool
	running bool
	ended   chan struct{} // closed when Run returns
}

type dir struct {
	fd    int
	wd    int32
	path  string
	names []Target
	moved bool
}

const watchMask = unix.IN_CREATE | unix.IN_MOVED_TO | unix.IN_MOVE_SELF | unix.IN_DELETE_SELF | unix.IN_ONLYDIR | unix.IN_EXCL_UNLINK

// Watch starts watching. Each directory is opened without following
// symlinks and watched through its descriptor, so what is watched is what
// was opened. A target that exists already is an error: it is not the
// sandbox's to remove.
func Watch(targets []Target) (*Watcher, error) {
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("inotify_init1: %w", err)
	}
	wake, err := unix.Eventfd(0, unix.EFD_CLOEXEC)
	if err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("eventfd: %w", err)
	}
	w := &Watcher{fd: fd, wake: wake, dirs: map[int32]*dir{}, ended: make(chan struct{})}
	byPath := map[string]*dir{}
	for _, t := range targets {
		d := byPath[t.Dir]
		if d == nil {
			dfd, err := unix.Openat2(unix.AT_FDCWD, t.Dir, &unix.OpenHow{
				Flags:   unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC,
				Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
			})
			if err != nil {
				w.Close()
				return nil, fmt.Errorf("open %s to watch it: %w", t.Dir, err)
			}
			wd, err := unix.InotifyAddWatch(fd, fmt.Sprintf("/proc/self/fd/%d", dfd), watchMask)
			if err != nil {
				unix.Close(dfd)
				w.Close()
				return nil, fmt.Errorf("inotify_add_watch %s: %w", t.Dir, err)
			}
			d = &dir{fd: dfd, wd: int32(wd), path: t.Dir}
			byPath[t.Dir], w.dirs[int32(wd)] = d, d
		}
		if present(d.fd, t.Name) {
			w.Close()
			return nil, fmt.Errorf("%s exists already", t.Path())
		}
		d.names = append(d.names, t)
	}
	return w, nil
}

// Run reads events until Close and calls appeared after removing each
// target that appeared. It holds an OS thread of its own, blocked in the
// kernel until an event comes: the shortest way from an event to its
// removal (Go's poller would add a hand-off to another thread).
func (w *Watcher) Run(appeared func(Found)) {
	w.mu.Lock()
	if w.closed || w.running {
		w.mu.Unlock()
		return
	}
	w.running = true
	w.mu.Unlock()
	defer close(w.ended)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	buf := make([]byte, 64<<10)
	fds := []unix.PollFd{{Fd: int32(w.fd), Events: unix.POLLIN}, {Fd: int32(w.wake), Events: unix.POLLIN}}
	for {
		_, err := unix.Poll(fds, -1)
		if err == nil && fds[1].Revents != 0 {
			return
		}
		var n int
		if err == nil {
			n, err = unix.Read(w.fd, buf)
		}
		if err != nil {
			if errors.Is(err, unix.EINTR) || errors.Is(err, unix.EAGAIN) {
				continue
			}
			// Nothing more can be seen: say so as a violation of all.
			for _, d := range w.dirs {
				for _, t := range d.names {
					appeared(w.record(Found{Target: t, Err: fmt.Errorf("reading inotify events: %w", err)}))
				}
			}
			return
		}
		for _, f := range w.check(buf[:n]) {
			appeared(f)
		}
	}
}

// check looks at the directories the events name, every one on overflow,
// and removes the targets present there.
func (w *Watcher) check(events []byte) []Found {
	touched := map[*dir]bool{}
	all := false
	for off := 0; off+unix.SizeofInotifyEvent <= len(events); {
		ev := (*unix.InotifyEvent)(unsafe.Pointer(&events[off]))
		off += unix.SizeofInotifyEvent + int(ev.Len)
		if ev.Mask&unix.IN_Q_OVERFLOW != 0 {
			all = true
			continue
		}
		d := w.dirs[ev.Wd]
		if d == nil || ev.Mask&unix.IN_IGNORED != 0 {
			continue
		}
		if ev.Mask&(unix.IN_MOVE_SELF|unix.IN_DELETE_SELF) != 0 {
			w.mu.Lock()
			d.moved = true
			w.mu.Unlock()
		}
		touched[d] = true
	}
	var out []Found
	for _, d := range w.dirs {
		if all || touched[d] {
			out = append(out, w.sweepDir(d)...)
		}
	}
	return out
}

// Sweep removes every target present now; run it once the sandbox is gone.
func (w *Watcher) Sweep() []Found {
	var out []Found
	for _, d := range w.dirs {
		out = append(out, w.sweepDir(d)...)
	}
	return out
}

func (w *Watcher) sweepDir(d *dir) []Found {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []Found
	if w.closed {
		return nil
	}
	if d.moved {
		d.moved = false
		for _, t := range d.names {
			f := Found{Target: t, Err: errors.New("its directory was moved or removed")}
			w.found = append(w.found, f)
			out = append(out, f)
		}
		return out
	}
	for _, t := range d.names {
		var st unix.Stat_t
		if unix.Fstatat(d.fd, t.Name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
			continue
		}
		f := Found{Target: t, Kind: kind(st.Mode)}
		f.Err = removeAt(d.fd, t.Name, 0)
		f.Removed = f.Err == nil
		w.found = append(w.found, f)
		out = append(out, f)
	}
	return out
}

func (w *Watcher) record(f Found) Found {
	w.mu.Lock()
	w.found = append(w.found, f)
	w.mu.Unlock()
	return f
}

// All is every target found so far.
func (w *Watcher) All() []Found {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]Found(nil), w.found...)
}

// Unwatch removes the watches; Sweep still works. Closing an inotify
// descriptor that still holds watches waits for the kernel's grace period
// (5 to 20 ms here), and so does exiting with one; removed half a
// millisecond or more before, they cost nothing then. Call it as soon as
// the sandbox is gone.
func (w *Watcher) Unwatch() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return
	}
	for _, d := range w.dirs {
		if d.wd >= 0 {
			_, _ = unix.InotifyRmWatch(w.fd, uint32(d.wd))
			d.wd = -1
		}
	}
}

// Close stops Run, waits until it has returned (no call of appeared
// follows Close), and releases the descriptors.
func (w *Watcher) Close() {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return
	}
	w.closed = true
	running := w.running
	w.mu.Unlock()
	if running {
		_, _ = unix.Write(w.wake, []byte{1, 0, 0, 0, 0, 0, 0, 0})
		<-w.ended
	}
	unix.Close(w.fd)
	unix.Close(w.wake)
	for _, d := range w.dirs {
		unix.Close(d.fd)
	}
}

func present(dirfd int, name string) bool {
	var st unix.Stat_t
	return unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil
}

// removeAt removes name in dirfd and, if it is a directory, everything in
// it, never following a symlink; a payload still writing there may race
// it, so a directory that is not empty yet is tried again.
func removeAt(dirfd int, name string, depth int) error {
	if depth > 64 {
		return errors.New("nested too deep to remove")
	}
	err := unix.Unlinkat(dirfd, name, 0)
	if err == nil || errors.Is(err, unix.ENOENT) {
		return nil
	}
	if !errors.Is(err, unix.EISDIR) && !errors.Is(err, unix.EPERM) {
		return fmt.Errorf("unlink %s: %w", name, err)
	}
	for try := 0; try < 8; try++ {
		sub, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			return fmt.Errorf("open %s: %w", name, err)
		}
		f := os.NewFile(uintptr(sub), name)
		names, _ := f.Readdirnames(-1)
		for _, n := range names {
			if err := removeAt(sub, n, depth+1); err != nil {
				f.Close()
				return fmt.Errorf("%s/%w", name, err)
			}
		}
		f.Close()
		err = unix.Unlinkat(dirfd, name, unix.AT_REMOVEDIR)
		if err == nil || errors.Is(err, unix.ENOENT) {
			return nil
		}
		if !errors.Is(err, unix.ENOTEMPTY) {
			return fmt.Errorf("rmdir %s: %w", name, err)
		}
	}
	return fmt.Errorf("rmdir %s: still not empty", name)
}

func kind(mode uint32) string {
	switch mode & unix.S_IFMT {
	case unix.S_IFDIR:
		return "directory"
	case unix.S_IFLNK:
		return "symlink"
	case unix.S_IFREG:
		return "file"
	}
	return "special file"
}
