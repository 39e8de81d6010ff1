package absent

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Target is a name that must not appear in Dir.
type Target struct {
	Dir, Name string
	Why       string // what would follow from it, for messages
	// Root is Dir or a directory above it that the sandbox cannot rename,
	// remove or replace: every directory from Root down to Dir is
	// watched, and one found moved, removed or replaced is a violation.
	// "" is Dir.
	Root string
}

// Path is the target's full path.
func (t Target) Path() string { return join(t.Dir, t.Name) }

// Found is a target that appeared, or whose way changed.
type Found struct {
	Target
	// Way is the first directory from Root to Dir that is not the one
	// watched any more (moved, removed or replaced); "" when none is.
	Way string
	// At is where something stood that the target's path resolved
	// through: the path itself, or a symlink (or other file) standing
	// for a directory of the way; "" when nothing did.
	At      string
	Kind    string // what stood at At: "file", "directory", "symlink", ...
	Removed bool   // it was removed
	Err     error  // why it could not be removed, or the way looked at
}

// Watcher watches directories for targets.
type Watcher struct {
	fd      int
	wake    int            // an eventfd that ends Run
	dirs    map[int32]*dir // set up by Watch, read-only afterwards
	targets []*target      // likewise
	mu      sync.Mutex     // guards what follows and each target's reported
	found   []Found
	closed  bool
	running bool
	ended   chan struct{} // closed when Run returns
}

// dir is a watched directory, on the way of one or more targets.
type dir struct {
	fd   int // as opened by Watch: where a target's name is removed first
	wd   int32
	path string
	id   fileID
	// next are the targets by the name in this directory their way (or
	// their own name) continues with.
	next map[string][]step
	// on are the targets whose way holds this directory.
	on []*target
}

// step is a target whose way continues with a name in a directory; last
// when that name is the target's own.
type step struct {
	t    *target
	last bool
}

type target struct {
	Target
	dir   *dir // the one that holds the name
	root  string
	comps []string // from root to Dir
	ids   []fileID // of root and each component, when watched
	// reported is the way change already reported, so each is told once.
	reported string
}

type fileID struct{ dev, ino uint64 }

const watchMask = unix.IN_CREATE | unix.IN_MOVED_TO | unix.IN_MOVED_FROM | unix.IN_DELETE |
	unix.IN_MOVE_SELF | unix.IN_DELETE_SELF | unix.IN_ONLYDIR | unix.IN_EXCL_UNLINK

// Watch starts watching. Each directory from a target's Root to its Dir
// is opened without following symlinks and watched through its
// descriptor, so what is watched is what was opened. A target that exists
// already is an error: it is not the sandbox's to remove.
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
	for _, tg := range targets {
		t, err := newTarget(tg)
		if err == nil {
			err = w.watchWay(t, byPath)
		}
		if err != nil {
			w.Close()
			return nil, err
		}
		w.targets = append(w.targets, t)
	}
	return w, nil
}

func newTarget(tg Target) (*target, error) {
	root := tg.Root
	if root == "" {
		root = tg.Dir
	}
	comps, err := Way(root, tg.Dir)
	if err != nil {
		return nil, err
	}
	if tg.Name == "" || strings.Contains(tg.Name, "/") || tg.Name == "." || tg.Name == ".." {
		return nil, fmt.Errorf("%q: not a name", tg.Name)
	}
	return &target{Target: tg, root: root, comps: comps}, nil
}

// Way is the names leading from root down to dir, both clean absolute
// paths, dir at or below root.
func Way(root, dir string) ([]string, error) {
	if !isClean(root) || !isClean(dir) {
		return nil, fmt.Errorf("%s and %s: want clean absolute paths", root, dir)
	}
	if dir == root {
		return nil, nil
	}
	prefix := root + "/"
	if root == "/" {
		prefix = "/"
	}
	rest, ok := strings.CutPrefix(dir, prefix)
	if !ok {
		return nil, fmt.Errorf("%s is not below %s", dir, root)
	}
	return strings.Split(rest, "/"), nil
}

func isClean(p string) bool {
	if p == "/" {
		return true
	}
	if !strings.HasPrefix(p, "/") || strings.HasSuffix(p, "/") || strings.Contains(p, "//") {
		return false
	}
	for _, c := range strings.Split(p[1:], "/") {
		if c == "." || c == ".." {
			return false
		}
	}
	return true
}

// watchWay opens and watches each directory of t's way, and checks that
// its name is absent.
func (w *Watcher) watchWay(t *target, byPath map[string]*dir) error {
	fd, err := openRoot(t.root)
	if err != nil {
		return fmt.Errorf("open %s to watch it: %w", t.root, err)
	}
	// Each descriptor opened is kept by the directory it is added as, or
	// closed.
	defer func() {
		if fd >= 0 {
			unix.Close(fd)
		}
	}()
	p := t.root
	for i := 0; ; i++ {
		d := byPath[p]
		if d == nil {
			if d, err = w.add(fd, p); err != nil {
				return err
			}
			byPath[p] = d
		}
		if d.fd == fd {
			fd = -1 // kept
		}
		dirfd := d.fd
		t.ids = append(t.ids, d.id)
		d.on = append(d.on, t)
		name := t.Name
		if i < len(t.comps) {
			name = t.comps[i]
		}
		if d.next == nil {
			d.next = map[string][]step{}
		}
		d.next[name] = append(d.next[name], step{t: t, last: i == len(t.comps)})
		if i == len(t.comps) {
			t.dir = d
			break
		}
		if fd >= 0 {
			unix.Close(fd)
		}
		sub, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		fd = -1
		p = join(p, name)
		if err != nil {
			return fmt.Errorf("open %s to watch it: %w", p, err)
		}
		fd = sub
	}
	if present(t.dir.fd, t.Name) {
		return fmt.Errorf("%s exists already", t.Path())
	}
	return nil
}

// add watches the directory fd, at p.
func (w *Watcher) add(fd int, p string) (*dir, error) {
	id, err := identify(fd)
	if err != nil {
		return nil, fmt.Errorf("fstat %s: %w", p, err)
	}
	wd, err := unix.InotifyAddWatch(w.fd, fmt.Sprintf("/proc/self/fd/%d", fd), watchMask)
	if err != nil {
		return nil, fmt.Errorf("inotify_add_watch %s: %w", p, err)
	}
	d := &dir{fd: fd, wd: int32(wd), path: p, id: id}
	if old := w.dirs[d.wd]; old != nil {
		// The same directory under two paths (a bind mount): one watch.
		return old, nil
	}
	w.dirs[d.wd] = d
	return d, nil
}

func openRoot(p string) (int, error) {
	return unix.Openat2(unix.AT_FDCWD, p, &unix.OpenHow{
		Flags:   unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	})
}

func identify(fd int) (fileID, error) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fileID{}, err
	}
	return fileID{dev: st.Dev, ino: st.Ino}, nil
}

func join(dir, name string) string {
	if dir == "/" {
		return "/" + name
	}
	return dir + "/" + name
}

// Run reads events until Close and calls appeared for each violation
// found, after removing what it could. It holds an OS thread of its own,
// blocked in the kernel until an event comes: the shortest way from an
// event to its removal (Go's poller would add a hand-off to another
// thread).
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
			for _, t := range w.targets {
				appeared(w.record(Found{Target: t.Target, Err: fmt.Errorf("reading inotify events: %w", err)}))
			}
			return
		}
		for _, f := range w.check(buf[:n]) {
			appeared(f)
		}
	}
}

// check walks again the ways of the targets the events touch (every one
// on overflow) and removes what resolves there.
func (w *Watcher) check(events []byte) []Found {
	touched, named := map[*target]bool{}, map[*target]bool{}
	all := false
	for off := 0; off+unix.SizeofInotifyEvent <= len(events); {
		ev := (*unix.InotifyEvent)(unsafe.Pointer(&events[off]))
		name := events[off+unix.SizeofInotifyEvent : off+unix.SizeofInotifyEvent+int(ev.Len)]
		off += unix.SizeofInotifyEvent + int(ev.Len)
		if ev.Mask&unix.IN_Q_OVERFLOW != 0 {
			all = true
			continue
		}
		d := w.dirs[ev.Wd]
		if d == nil || ev.Mask&unix.IN_IGNORED != 0 {
			continue
		}
		for _, st := range d.touched(ev.Mask, cString(name)) {
			switch {
			case !st.last:
				touched[st.t] = true
			case ev.Mask&(unix.IN_CREATE|unix.IN_MOVED_TO) != 0:
				named[st.t] = true
			}
		}
	}
	var out []Found
	for _, t := range w.targets {
		if named[t] && !all && !touched[t] {
			// The name appeared in its directory: removed there at once.
			// Had the directory moved, an event on the way says so too.
			out = append(out, w.removeName(t)...)
		}
		if all || touched[t] {
			out = append(out, w.walk(t)...)
		}
	}
	return out
}

// removeName removes t's name in the directory Watch opened.
func (w *Watcher) removeName(t *target) []Found {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil
	}
	var st unix.Stat_t
	if unix.Fstatat(t.dir.fd, t.Name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
		return nil
	}
	f := Found{Target: t.Target, At: t.Path(), Kind: kind(st.Mode)}
	f.Err = removeAt(t.dir.fd, t.Name, 0)
	f.Removed = f.Err == nil
	return w.report(t, f)
}

// touched are the steps an event in d concerns: of all the targets whose
// way holds d when d itself went (moved, removed, its filesystem
// unmounted), else of those whose way or name continues with name in d.
func (d *dir) touched(mask uint32, name string) []step {
	if mask&(unix.IN_MOVE_SELF|unix.IN_DELETE_SELF|unix.IN_UNMOUNT) != 0 {
		out := make([]step, 0, len(d.on))
		for _, t := range d.on {
			out = append(out, step{t: t})
		}
		return out
	}
	if ts, ok := d.next[name]; ok {
		return ts
	}
	// In a case-insensitive directory (ext4's casefold, vfat) "HOOKS"
	// is found by the name "hooks": the walk then finds it too.
	var out []step
	for n, ts := range d.next {
		if strings.EqualFold(n, name) {
			out = append(out, ts...)
		}
	}
	return out
}

func cString(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}

// Sweep walks every target's way again and removes what resolves there;
// run it once the sandbox is gone.
func (w *Watcher) Sweep() []Found {
	var out []Found
	for _, t := range w.targets {
		out = append(out, w.walk(t)...)
	}
	return out
}

// walk walks t's way again from its root, never following a symlink, and
// removes what makes its path resolve: the name in Dir, or a symlink (or
// any other file) standing for a directory of the way. A directory that is
// not the one watched is a violation, reported once.
func (w *Watcher) walk(t *target) []Found {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil
	}
	f := Found{Target: t.Target}
	fd, err := openRoot(t.root)
	if err != nil {
		f.Way, f.Err = t.root, fmt.Errorf("open %s: %w", t.root, err)
		return w.report(t, f)
	}
	p := t.root
	for i := 0; ; i++ {
		if id, err := identify(fd); err != nil || id != t.ids[i] {
			if f.Way == "" {
				f.Way = p
			}
		}
		if i == len(t.comps) {
			break
		}
		next := t.comps[i]
		sub, k, err := openDir(fd, next)
		if err != nil || sub < 0 {
			// Missing, or a file that is not a directory: the path cannot
			// resolve through it. A symlink (or anything else) is removed,
			// so that nothing the payload left there can make it resolve.
			if f.Way == "" {
				f.Way = join(p, next)
			}
			if k != "" {
				f.At, f.Kind = join(p, next), k
				f.Err = removeAt(fd, next, 0)
				f.Removed = f.Err == nil
			} else if err != nil {
				f.Err = fmt.Errorf("open %s: %w", join(p, next), err)
			}
			unix.Close(fd)
			return w.report(t, f)
		}
		unix.Close(fd)
		fd, p = sub, join(p, next)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if unix.Fstatat(fd, t.Name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil {
		f.At, f.Kind = t.Path(), kind(st.Mode)
		f.Err = removeAt(fd, t.Name, 0)
		f.Removed = f.Err == nil
	}
	return w.report(t, f)
}

// openDir opens the directory name in dirfd without following a symlink.
// When name is something else it returns -1 and its kind, "" when it is
// missing.
func openDir(dirfd int, name string) (fd int, kindOf string, err error) {
	// A payload may swap a directory and a symlink between the look and
	// the open: look again a few times.
	for try := 0; try < 8; try++ {
		fd, err := openSub(dirfd, name)
		if err == nil {
			return fd, "", nil
		}
		if !errors.Is(err, unix.ENOTDIR) && !errors.Is(err, unix.ELOOP) {
			if errors.Is(err, unix.ENOENT) {
				err = nil
			}
			return -1, "", err
		}
		var st unix.Stat_t
		if err := unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err == nil && st.Mode&unix.S_IFMT != unix.S_IFDIR {
			return -1, kind(st.Mode), nil
		}
	}
	return -1, "", fmt.Errorf("open %s: still changing", name)
}

// report records f and returns it, if it says something not said yet:
// what was found at the path or for the way, or a change of the way.
func (w *Watcher) report(t *target, f Found) []Found {
	if f.At == "" && (f.Way == "" || f.Way == t.reported) && f.Err == nil {
		return nil
	}
	if f.Way != "" {
		t.reported = f.Way
	}
	w.found = append(w.found, f)
	return []Found{f}
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
	if errors.Is(err, unix.EACCES) && ownerRights(dirfd) == nil {
		err = unix.Unlinkat(dirfd, name, 0)
	}
	if err == nil || errors.Is(err, unix.ENOENT) {
		return nil
	}
	if !errors.Is(err, unix.EISDIR) && !errors.Is(err, unix.EPERM) {
		return fmt.Errorf("unlink %s: %w", name, err)
	}
	for try := 0; try < 8; try++ {
		sub, err := openSub(dirfd, name)
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

// The payload runs as the caller's uid, so it may take the owner's rights
// on a directory away (a planted hooks/ made 0555, a directory in it 0):
// nsrun, as that same user, could then neither open nor empty it, and what
// the payload planted would stay. nsrun gives the owner those rights back
// on a directory it must open or empty.

// openSub opens the directory name in dirfd without following a symlink,
// giving its owner the rights to read and search it first if need be.
func openSub(dirfd int, name string) (int, error) {
	const flags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC
	fd, err := unix.Openat(dirfd, name, flags, 0)
	if !errors.Is(err, unix.EACCES) {
		return fd, err
	}
	// O_PATH opens it whatever its mode; the chmod goes through that
	// descriptor, so a symlink swapped in meanwhile is never followed.
	p, perr := unix.Openat(dirfd, name, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if perr != nil {
		return -1, err
	}
	var st unix.Stat_t
	cerr := unix.Fstat(p, &st)
	if cerr == nil {
		cerr = unix.Chmod(fmt.Sprintf("/proc/self/fd/%d", p), st.Mode&0o7777|0o700)
	}
	unix.Close(p)
	if cerr != nil {
		return -1, err
	}
	return unix.Openat(dirfd, name, flags, 0)
}

// ownerRights gives the owner of the open directory fd the rights to
// change entries in it.
func ownerRights(fd int) error {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return err
	}
	if st.Mode&0o300 == 0o300 {
		return errors.New("the owner has those rights already")
	}
	return unix.Fchmod(fd, st.Mode&0o7777|0o700)
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
