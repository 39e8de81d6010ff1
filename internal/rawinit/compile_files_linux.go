package rawinit

import (
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/mounts"
)

// scratchFiles is the program's side of mounts' scratchFS: the detached
// tmpfs that holds the empty file denied files are bound from and the
// files of OpFile, made by the first op that needs it, as mounts makes it
// (where that op is optional and its mount point missing, by the next
// one), and closed after pivot_root. Its descriptor lives in the buffer
// fd, -1 until it is made.
type scratchFiles struct {
	fd    Arg
	size  uint64 // as mounts' scratchSize
	files int    // OpFile ops compiled so far: the next is file<files+1>
	// maybe: an optional op made it, or was skipped; made: an op that
	// cannot be skipped made it (or the program failed).
	maybe, made bool
}

// supportsFiles refuses what the program cannot name as mounts does: a
// file of the sandbox's own is named file1, file2, ... in the scratch
// tmpfs (its root in the mountinfo the payload reads) in the order the
// files are made, and an optional one whose mount point is missing is
// not made, which would shift the names of the files after it.
// A content longer than one write(2) can take is refused too: the
// program writes each file in one.
func supportsFiles(ops []mounts.Op) error {
	optional := ""
	for _, op := range ops {
		if op.Kind != mounts.OpFile {
			continue
		}
		if len(op.Content) > maxWrite {
			return unsupported("a file of the sandbox's own of over " + strconv.Itoa(maxWrite) + " bytes on " + op.Path)
		}
		if optional != "" {
			return unsupported("a file of the sandbox's own on " + op.Path + " after the optional one on " + optional)
		}
		if op.Optional {
			optional = op.Path
		}
	}
	return nil
}

// maxWrite is the most one write(2) writes (the kernel's MAX_RW_COUNT).
const maxWrite = 0x7ffff000

// newScratchFiles sizes the scratch tmpfs for p's files as mounts'
// scratchSize does: 64 KiB, and each file's content with a page.
func newScratchFiles(p *mounts.Plan) *scratchFiles {
	s := &scratchFiles{size: 1 << 16}
	for _, op := range p.Ops {
		if op.Kind == mounts.OpFile {
			s.size += uint64(len(op.Content)) + 4096
		}
	}
	return s
}

// scratchDir makes the scratch tmpfs unless it is made already, as
// mounts' scratchFS.emptyFile does (with its "empty" file), and returns
// a new register holding its descriptor; the op that needs it is named
// kind and path, as mounts' errors name it.
func (b *builder) scratchDir(kind string, op mounts.Op) int {
	s := b.files
	if !s.made {
		if s.fd.isZero() {
			s.fd = b.data("scratch tmpfs fd", []byte{0xff, 0xff, 0xff, 0xff})
		}
		made := -1
		if s.maybe {
			made = b.add(Op{Code: opCmp, Args: [6]Arg{s.fd, imm(0xffffffff), imm(0xffffffff), imm(4)}})
		}
		b.begin("%s %s: the scratch tmpfs", kind, op.Path)
		mnt := b.newFS("tmpfs", [][2]string{{"mode", "0755"}, {"size", strconv.FormatUint(s.size, 10)}},
			unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV|unix.MOUNT_ATTR_NOEXEC)
		b.begin("%s %s: create empty file", kind, op.Path)
		b.mountpoint(mnt, mounts.Mountpoint{Rel: "empty"})
		b.add(Op{Code: opStore32, Args: [6]Arg{reg(mnt), s.fd}})
		if made >= 0 {
			b.p.Ops[made].To = b.label()
		}
		s.maybe, s.made = true, !op.Optional
	}
	dir := b.newReg()
	b.add(Op{Code: opLoad32, Args: [6]Arg{s.fd}, Dst: dir})
	return dir
}

// closeScratch closes the scratch tmpfs if it was made, as mounts.Build
// does once it has pivoted.
func (b *builder) closeScratch() {
	s := b.files
	if !s.maybe {
		return
	}
	b.begin("close the scratch tmpfs")
	never := -1
	if !s.made {
		never = b.add(Op{Code: opCmp, Eq: true, Args: [6]Arg{s.fd, imm(0xffffffff), imm(0xffffffff), imm(4)}})
	}
	fd := b.newReg()
	b.add(Op{Code: opLoad32, Args: [6]Arg{s.fd}, Dst: fd})
	b.close(fd)
	if never >= 0 {
		b.p.Ops[never].To = b.label()
	}
}

// emptyFile binds the scratch tmpfs's empty file onto the mount point in
// register target, as mounts' mountEmptyFile does.
func (b *builder) emptyFile(op mounts.Op, target int) {
	dir := b.scratchDir("deny", op)
	b.bindScratch(dir, "empty", target, op.Path, "deny")
}

// file writes op.Content to a new file of the scratch tmpfs with mode
// op.FileMode (0444 less the umask without one) and binds it onto the
// mount point in register target, as mounts' mountFile does.
func (b *builder) file(op mounts.Op, target int) {
	dir := b.scratchDir("file", op)
	b.files.files++
	name := "file" + strconv.Itoa(b.files.files)
	b.begin("file %s", op.Path)
	_, fd := b.sysTo(unix.SYS_OPENAT, reg(dir), b.str(name), imm(unix.O_CREAT|unix.O_EXCL|unix.O_WRONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC), imm(0o444))
	if n := len(op.Content); n > 0 {
		// One write (supportsFiles bounds the content): the tmpfs has
		// room for every file, so a short one means it filled, and the
		// write after it, mounts' loop's, fails with ENOSPC.
		_, w := b.sysTo(unix.SYS_WRITE, reg(fd), b.data("content of "+op.Path, []byte(op.Content)), immInt(n))
		count := b.scratch("written", 4)
		b.add(Op{Code: opStore32, Args: [6]Arg{reg(w), count}})
		b.add(Op{Code: opCmp, Args: [6]Arg{count, imm(0xffffffff), immInt(n), imm(4), imm(uintptr(syscall.ENOSPC))}})
	}
	if op.FileMode != 0 {
		b.sys(unix.SYS_FCHMOD, reg(fd), imm(uintptr(op.FileMode)))
	}
	b.close(fd)
	b.bindScratch(dir, name, target, op.Path, "file")
}

// bindScratch binds the file name of the scratch tmpfs in register dir
// onto the mount point in register target, read-only, nosuid, nodev and
// noexec, as mounts' bindScratch does; its steps are worded as its
// errors.
func (b *builder) bindScratch(dir int, name string, target int, path, kind string) {
	b.begin("%s %s: open_tree", kind, path)
	_, tree := b.sysTo(unix.SYS_OPEN_TREE, reg(dir), b.str(name), imm(unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC))
	b.begin("%s %s: mount_setattr", kind, path)
	b.setattr(tree, unix.MOUNT_ATTR_RDONLY|unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV|unix.MOUNT_ATTR_NOEXEC, false)
	b.begin("%s %s: move_mount on %s", kind, path, path)
	b.moveTo(tree, target, "")
	b.close(tree)
}
