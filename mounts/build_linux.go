package mounts

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/internal/mountinfo"
)

// Build makes the planned view and pivots into it. It must run in a mount
// namespace of its own, owned by a user namespace in which the caller holds
// CAP_SYS_ADMIN; on return the process root and working directory are the
// new root and the host tree is detached.
//
// The new root is stacked on the old one, but the process root stays the
// old root until pivot_root, so every source path (absolute) is still
// resolved in the host's tree, which nothing here mounts on: no rule can
// hide or redirect another rule's source. Each source is cloned just before
// it is attached, which keeps one detached tree alive at a time (the kernel
// slows down with many).
func Build(p *Plan) error {
	// Private, not slave: nothing made here reaches the host, and nothing
	// the host mounts later (under a bound path, a shared mount of its
	// own) reaches the sandbox, where it would arrive without the
	// read-only flag. Clones of private mounts are private too.
	if err := unix.Mount("", "/", "", unix.MS_PRIVATE|unix.MS_REC, ""); err != nil {
		return fmt.Errorf("make / rprivate: %w", err)
	}
	b := &builder{attrs: attrs{remount: p.Remount}, scratch: scratchFS{size: scratchSize(p)}}
	defer b.scratch.close()
	root, err := b.mountRoot(p.Root)
	if err != nil {
		return err
	}
	defer func() { unix.Close(b.root) }()
	b.root, b.attrs.root = root, root
	if len(p.Root.Mirror) > 0 {
		// The mirror covers the root: from now on "/" of the view is it.
		if b.root, err = b.mirror(p.Root.Path, root, p.Root.Mirror, true); err != nil {
			return err
		}
		unix.Close(root)
		b.attrs.root = b.root
		b.stacked++
	}
	for _, op := range p.Ops {
		if err := b.apply(op); err != nil {
			return err
		}
	}
	return pivot(b.root, b.stacked)
}

// mountRoot makes the root of the view, stacked on the process root, and
// returns it.
func (b *builder) mountRoot(op Op) (int, error) {
	if op.Kind == OpOverlay {
		return b.mountOverlay(op, -1)
	}
	root, err := b.cloneSource(op)
	if err != nil {
		return -1, err
	}
	if err := unix.MoveMount(root, "", unix.AT_FDCWD, "/", unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
		unix.Close(root)
		return -1, fmt.Errorf("move_mount %s on /: %w", op.Source, err)
	}
	// Submounts are found, on kernels without mount_setattr, by their
	// paths in the new root.
	b.attrs.root = root
	if err := b.attrs.moved(root); err != nil {
		unix.Close(root)
		return -1, fmt.Errorf("attributes of %s: %w", op.Source, err)
	}
	if err := coverReveals(root, op); err != nil {
		unix.Close(root)
		return -1, err
	}
	return root, nil
}

// coverReveals mounts an empty read-only tmpfs on each of op.Covers in
// tree, the tree of op just attached, found from its root: whatever the
// plan mounts later on the path there is not in the way.
func coverReveals(tree int, op Op) error {
	for _, c := range op.Covers {
		at := path.Join(op.Path, c)
		target, err := OpenNoSymlinks(tree, c, true, false)
		if errors.Is(err, unix.ENOENT) {
			continue // unmounted and removed since the plan
		}
		if err != nil {
			return fmt.Errorf("cover %s: %w", at, explainResolve(err))
		}
		mnt, err := newFS("tmpfs", map[string]string{"mode": "555", "size": "4k"},
			unix.MOUNT_ATTR_RDONLY|unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV|unix.MOUNT_ATTR_NOEXEC)
		if err == nil {
			err = unix.MoveMount(mnt, "", target, "", unix.MOVE_MOUNT_F_EMPTY_PATH|unix.MOVE_MOUNT_T_EMPTY_PATH)
			unix.Close(mnt)
		}
		unix.Close(target)
		if err != nil {
			return fmt.Errorf("cover %s: %w", at, err)
		}
	}
	return nil
}

// builder holds what building one view needs across ops.
type builder struct {
	root    int
	attrs   attrs
	scratch scratchFS
	// stacked counts the mounts left between the process root and the
	// view's root at "/": pivot detaches them too.
	stacked int
}

// attach moves the detached mount fd onto target and applies attributes
// that had to wait for it to be attached.
func (b *builder) attach(fd, target int, name string) error {
	if err := unix.MoveMount(fd, "", target, "", unix.MOVE_MOUNT_F_EMPTY_PATH|unix.MOVE_MOUNT_T_EMPTY_PATH); err != nil {
		return fmt.Errorf("move_mount on %s: %w", name, err)
	}
	if err := b.attrs.moved(fd); err != nil {
		return fmt.Errorf("attributes of %s: %w", name, err)
	}
	return nil
}

// attachAt is attach onto a name inside the directory dir.
func (b *builder) attachAt(fd, dir int, name, display string) error {
	if err := unix.MoveMount(fd, "", dir, name, unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
		return fmt.Errorf("move_mount on %s: %w", display, err)
	}
	if err := b.attrs.moved(fd); err != nil {
		return fmt.Errorf("attributes of %s: %w", display, err)
	}
	return nil
}

func (b *builder) apply(op Op) error {
	target, err := resolve(b.root, op.Path, op.Kind == OpPinLink)
	if err != nil {
		if op.Optional && errors.Is(err, unix.ENOENT) {
			return nil
		}
		return fmt.Errorf("mount point %s: %w", op.Path, explainResolve(err))
	}
	defer unix.Close(target)
	switch op.Kind {
	case OpBind:
		return b.bind(op, target)
	case OpTmpfs:
		return b.mountTmpfs(op, target)
	case OpEmptyFile:
		return b.mountEmptyFile(op, target)
	case OpDev:
		return b.mountDev(op, target)
	case OpProc:
		return b.mountProc(op.Path, target, op.ReadOnly)
	case OpHostProc:
		return b.bindHostProc(op.Source, op.Path, target)
	case OpSys:
		return b.mountSys(op.Path, target)
	case OpHostSys:
		return b.bindHostSys(op.Source, op.Path, target)
	case OpPinLink:
		return b.pinLink(op, target)
	case OpFile:
		return b.mountFile(op, target)
	case OpOverlay:
		fd, err := b.mountOverlay(op, target)
		if err == nil {
			unix.Close(fd)
		}
		return err
	case OpMirror:
		fd, err := b.mirror(op.Path, target, op.Mirror, false)
		if err == nil {
			unix.Close(fd)
		}
		return err
	}
	return fmt.Errorf("mount %s: unknown op %d", op.Path, op.Kind)
}

// resolve opens p under root without following any symlink (with link, a
// symlink at the end is opened itself) and without leaving root.
func resolve(root int, p string, link bool) (int, error) {
	rel := strings.TrimPrefix(p, "/")
	if rel == "" {
		rel = "."
	}
	return OpenNoSymlinks(root, rel, true, link)
}

func explainResolve(err error) error {
	if errors.Is(err, unix.ELOOP) {
		return fmt.Errorf("%w (a symlink is in the way; nsrun never mounts through one)", err)
	}
	if errors.Is(err, unix.ENOENT) {
		return fmt.Errorf("%w (it does not exist inside the sandbox's root)", err)
	}
	return err
}

// cloneSource opens op.Source without following symlinks, checks it is the
// inode the planner saw, and clones its mount tree with the op's attributes.
func (b *builder) cloneSource(op Op) (int, error) {
	fd, err := OpenNoSymlinks(unix.AT_FDCWD, op.Source, false, false)
	if err != nil {
		if errors.Is(err, unix.ELOOP) {
			return -1, fmt.Errorf("open %s: %w (a symlink appeared after the path was checked)", op.Source, err)
		}
		return -1, fmt.Errorf("open %s: %w", op.Source, err)
	}
	defer unix.Close(fd)
	if err := checkIdentity(fd, op.Source, op.ID); err != nil {
		return -1, err
	}
	tree, err := unix.OpenTree(fd, "", unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_EMPTY_PATH|unix.AT_RECURSIVE)
	if err != nil {
		return -1, fmt.Errorf("open_tree %s: %w", op.Source, err)
	}
	attr := uint64(unix.MOUNT_ATTR_NOSUID | unix.MOUNT_ATTR_NODEV)
	if op.ReadOnly {
		attr |= unix.MOUNT_ATTR_RDONLY
	}
	if err := b.attrs.set(tree, attr, true, false); err != nil {
		unix.Close(tree)
		return -1, fmt.Errorf("mount_setattr %s: %w", op.Source, err)
	}
	return tree, nil
}

func checkIdentity(fd int, name string, want Identity) error {
	if want == (Identity{}) {
		return nil
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("fstat %s: %w", name, err)
	}
	if st.Dev != want.Dev || st.Ino != want.Ino {
		return fmt.Errorf("bind %s: the path now names another file than the one checked (dev %d ino %d, was dev %d ino %d)",
			name, st.Dev, st.Ino, want.Dev, want.Ino)
	}
	return nil
}

func (b *builder) bind(op Op, target int) error {
	tree, err := b.cloneSource(op)
	if err != nil {
		return err
	}
	defer unix.Close(tree)
	if err := b.attach(tree, target, op.Path); err != nil {
		return fmt.Errorf("bind %s: %w", op.Source, err)
	}
	if err := b.checkMounted(op); err != nil {
		return err
	}
	if err := coverReveals(tree, op); err != nil {
		return err
	}
	if len(op.Mirror) == 0 {
		return nil
	}
	fd, err := b.mirror(op.Path, tree, op.Mirror, false)
	if err == nil {
		unix.Close(fd)
	}
	return err
}

// checkMounted checks that op.Path now shows the inode op was planned for.
func (b *builder) checkMounted(op Op) error {
	mounted, err := resolve(b.root, op.Path, op.Kind == OpPinLink)
	if err != nil {
		return fmt.Errorf("reopen %s after mounting: %w", op.Path, err)
	}
	defer unix.Close(mounted)
	return checkIdentity(mounted, op.Path, op.ID)
}

// pinLink binds the host's symlink op.Source onto itself at target (the
// same link, seen through a writable bind): a mount point cannot be
// removed, renamed or replaced. The clone holds the link alone, so it
// needs no attributes: nothing is reached through it but its target,
// resolved as on the host.
func (b *builder) pinLink(op Op, target int) error {
	fd, err := OpenNoSymlinks(unix.AT_FDCWD, op.Source, false, true)
	if err != nil {
		return fmt.Errorf("pin %s: %w", op.Source, explainResolve(err))
	}
	defer unix.Close(fd)
	if err := checkIdentity(fd, op.Source, op.ID); err != nil {
		return err
	}
	tree, err := unix.OpenTree(fd, "", unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_EMPTY_PATH)
	if err != nil {
		return fmt.Errorf("pin %s: open_tree: %w", op.Source, err)
	}
	defer unix.Close(tree)
	if err := b.attach(tree, target, op.Path); err != nil {
		return fmt.Errorf("pin %s: %w", op.Source, err)
	}
	return b.checkMounted(op)
}

// newFS creates a detached mount of a fresh filesystem.
func newFS(fstype string, options map[string]string, attr int) (int, error) {
	fs, err := unix.Fsopen(fstype, unix.FSOPEN_CLOEXEC)
	if err != nil {
		return -1, fmt.Errorf("fsopen %s: %w", fstype, err)
	}
	defer unix.Close(fs)
	if err := unix.FsconfigSetString(fs, "source", fstype); err != nil {
		return -1, fmt.Errorf("fsconfig %s source: %w", fstype, err)
	}
	for k, v := range options {
		if err := unix.FsconfigSetString(fs, k, v); err != nil {
			return -1, fmt.Errorf("fsconfig %s %s=%s: %w", fstype, k, v, err)
		}
	}
	if err := unix.FsconfigCreate(fs); err != nil {
		return -1, fmt.Errorf("create %s: %w", fstype, err)
	}
	mnt, err := unix.Fsmount(fs, unix.FSMOUNT_CLOEXEC, attr)
	if err != nil {
		return -1, fmt.Errorf("fsmount %s: %w", fstype, err)
	}
	return mnt, nil
}

func (b *builder) mountTmpfs(op Op, target int) error {
	// Created 0755 so mount points can be made without CAP_DAC_OVERRIDE;
	// the planned mode is set afterwards.
	options := map[string]string{"mode": "755"}
	if op.Size > 0 {
		options["size"] = fmt.Sprint(op.Size)
	}
	mnt, err := newFS("tmpfs", options,
		unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV)
	if err != nil {
		return fmt.Errorf("tmpfs on %s: %w", op.Path, err)
	}
	defer unix.Close(mnt)
	for _, mp := range op.Mountpoints {
		if err := makeMountpoint(mnt, mp); err != nil {
			return fmt.Errorf("mount point %s/%s: %w", op.Path, mp.Rel, err)
		}
	}
	if op.Mode != 0o755 {
		if err := chmodRoot(mnt, op.Mode); err != nil {
			return fmt.Errorf("chmod %s: %w", op.Path, err)
		}
	}
	if op.ReadOnly {
		if err := b.attrs.set(mnt, unix.MOUNT_ATTR_RDONLY, false, false); err != nil {
			return fmt.Errorf("mount_setattr ro on %s: %w", op.Path, err)
		}
	}
	return b.attach(mnt, target, op.Path)
}

// chmodRoot sets the mode of the root directory of a detached mount.
func chmodRoot(mnt int, mode uint32) error {
	fd, err := unix.Openat(mnt, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	return unix.Fchmod(fd, mode)
}

// makeMountpoint creates mp and its parents inside a filesystem nsrun made
// itself (a fresh tmpfs, a mirror, an overlay's upper layer) without
// following a symlink on the way: a mirror holds the symlinks of the
// directory it stands for, and one whose target is absolute would point
// into the host, the process root while the view is built. An entry
// already there is used as it is.
func makeMountpoint(dir int, mp Mountpoint) error {
	parts := strings.Split(mp.Rel, "/")
	cur := dir
	defer func() {
		if cur != dir {
			unix.Close(cur)
		}
	}()
	for _, part := range parts[:len(parts)-1] {
		if err := unix.Mkdirat(cur, part, 0o755); err != nil && !errors.Is(err, unix.EEXIST) {
			return err
		}
		next, err := unix.Openat(cur, part, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			return err // ENOTDIR for a symlink or a file in the way
		}
		if cur != dir {
			unix.Close(cur)
		}
		cur = next
	}
	last := parts[len(parts)-1]
	switch {
	case mp.Data:
		return writeNewFile(cur, last, mp.Content, mp.Mode)
	case mp.Link != "":
		return unix.Symlinkat(mp.Link, cur, last)
	case mp.Dir:
		if err := unix.Mkdirat(cur, last, 0o755); err != nil && !errors.Is(err, unix.EEXIST) {
			return err
		}
		return nil
	}
	fd, err := unix.Openat(cur, last, unix.O_CREAT|unix.O_EXCL|unix.O_WRONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o444)
	if errors.Is(err, unix.EEXIST) {
		return nil
	}
	if err != nil {
		return err
	}
	return unix.Close(fd)
}

// writeNewFile makes the regular file name in dir, which must not exist,
// with content and the permission bits mode (the umask not applied).
func writeNewFile(dir int, name, content string, mode uint32) error {
	fd, err := unix.Openat(dir, name, unix.O_CREAT|unix.O_EXCL|unix.O_WRONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	for b := []byte(content); len(b) > 0; {
		n, err := unix.Write(fd, b)
		if err != nil {
			return err
		}
		b = b[n:]
	}
	return unix.Fchmod(fd, mode)
}

// scratchFS is a detached tmpfs holding the empty file that denied files
// are replaced with, and the files of OpFile; it is never attached
// anywhere.
type scratchFS struct {
	fd    int
	open  bool
	files int
	size  uint64 // bytes, room for every OpFile's content
}

// scratchSize is room for the plan's files in the scratch tmpfs, with a
// page for each and for the empty file.
func scratchSize(p *Plan) uint64 {
	size := uint64(1 << 16)
	for _, op := range p.Ops {
		if op.Kind == OpFile {
			size += uint64(len(op.Content)) + 4096
		}
	}
	return size
}

func (s *scratchFS) emptyFile() (int, error) {
	if s.open {
		return s.fd, nil
	}
	fd, err := newFS("tmpfs", map[string]string{"mode": "0755", "size": fmt.Sprint(s.size)}, unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV|unix.MOUNT_ATTR_NOEXEC)
	if err != nil {
		return -1, err
	}
	if err := makeMountpoint(fd, Mountpoint{Rel: "empty"}); err != nil {
		unix.Close(fd)
		return -1, fmt.Errorf("create empty file: %w", err)
	}
	s.fd, s.open = fd, true
	return fd, nil
}

// file writes content to a new file in the scratch tmpfs and returns its
// name there.
func (s *scratchFS) file(content string, mode uint32) (int, string, error) {
	dir, err := s.emptyFile()
	if err != nil {
		return -1, "", err
	}
	s.files++
	name := fmt.Sprintf("file%d", s.files)
	fd, err := unix.Openat(dir, name, unix.O_CREAT|unix.O_EXCL|unix.O_WRONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o444)
	if err != nil {
		return -1, "", err
	}
	defer unix.Close(fd)
	for b := []byte(content); len(b) > 0; {
		n, err := unix.Write(fd, b)
		if err != nil {
			return -1, "", err
		}
		b = b[n:]
	}
	if mode != 0 {
		if err := unix.Fchmod(fd, mode); err != nil {
			return -1, "", err
		}
	}
	return dir, name, nil
}

func (s *scratchFS) close() {
	if s.open {
		unix.Close(s.fd)
	}
}

func (b *builder) mountEmptyFile(op Op, target int) error {
	dir, err := b.scratch.emptyFile()
	if err != nil {
		return fmt.Errorf("deny %s: %w", op.Path, err)
	}
	return b.bindScratch(dir, "empty", target, op.Path, "deny")
}

// mountFile binds a read-only file with op.Content onto op.Path.
func (b *builder) mountFile(op Op, target int) error {
	dir, name, err := b.scratch.file(op.Content, op.FileMode)
	if err != nil {
		return fmt.Errorf("file %s: %w", op.Path, err)
	}
	return b.bindScratch(dir, name, target, op.Path, "file")
}

// bindScratch binds the file name of the scratch tmpfs dir onto target
// (path inside), read-only, nosuid, nodev and noexec; kind names the op
// in errors.
func (b *builder) bindScratch(dir int, name string, target int, path, kind string) error {
	tree, err := unix.OpenTree(dir, name, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC)
	if err != nil {
		return fmt.Errorf("%s %s: open_tree: %w", kind, path, err)
	}
	defer unix.Close(tree)
	if err := b.attrs.set(tree, unix.MOUNT_ATTR_RDONLY|unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV|unix.MOUNT_ATTR_NOEXEC, false, false); err != nil {
		return fmt.Errorf("%s %s: mount_setattr: %w", kind, path, err)
	}
	if err := b.attach(tree, target, path); err != nil {
		return fmt.Errorf("%s %s: %w", kind, path, err)
	}
	return nil
}

func closeAll(fds []int) {
	for _, fd := range fds {
		if fd >= 0 {
			unix.Close(fd)
		}
	}
}

// pivot makes root the process root and detaches the old one, and the
// stacked mounts that lay between them (a root bind under the root's
// mirror, the tmpfs under a root overlay). pivot_root puts the old root on
// top of the new one, with what was stacked on it still on top of it, and
// umount of "." takes the topmost mount there: one detach per layer, and
// then a check that the old root is gone, since a host root left mounted
// over the view would be reachable through "..".
func pivot(root, stacked int) error {
	old := -1
	if stacked > 0 {
		fd, err := unix.Open("/", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return fmt.Errorf("open the old root: %w", err)
		}
		old, err = mountID(fd)
		unix.Close(fd)
		if err != nil {
			return fmt.Errorf("the old root's mount: %w", err)
		}
	}
	if err := unix.Fchdir(root); err != nil {
		return fmt.Errorf("fchdir to new root: %w", err)
	}
	if err := unix.PivotRoot(".", "."); err != nil {
		return fmt.Errorf("pivot_root: %w", err)
	}
	for i := 0; i <= stacked; i++ {
		if err := unix.Unmount(".", unix.MNT_DETACH); err != nil {
			return fmt.Errorf("detach old root: %w", err)
		}
	}
	if err := unix.Chdir("/"); err != nil {
		return fmt.Errorf("chdir /: %w", err)
	}
	if old >= 0 {
		entries, err := mountinfo.Self()
		if err != nil {
			return fmt.Errorf("check the old root is detached: %w", err)
		}
		for _, e := range entries {
			if e.ID == old {
				return errors.New("the old root is still attached after pivot_root; refusing to run in this view")
			}
		}
	}
	return nil
}
