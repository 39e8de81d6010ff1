package gitguard

import (
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"syscall"
)

// Tree is a work tree whose repository nsrun protected, with the index
// git keeps for it.
type Tree struct {
	Dir, Index string
	hashSize   int
	// hidden are the entries whose changes git status and git diff do
	// not show (assume-unchanged, skip-worktree) when the run started;
	// nil when the index could not be read.
	hidden map[string]bool
	// stats are the stat data of each entry when the run started, which
	// git compares with the file's to decide, without reading it, that it
	// did not change; nil when the index could not be read.
	stats map[string]entryStat
	// exclude is the repository's info/exclude, whose patterns hide
	// untracked files from git status, and what it held at the start.
	exclude     string
	excludeWas  []byte
	excludeRead bool
}

// ExcludeChanged reports the info/exclude file of t's repository if it
// does not hold what it held when the run started: the patterns the
// payload added there hide its untracked files from git status (a
// conftest.py pytest runs, say), and no diff shows them.
func ExcludeChanged(t Tree) (string, bool) {
	if !t.excludeRead {
		return "", false
	}
	now, err := readSmall(t.exclude)
	if errors.Is(err, os.ErrNotExist) {
		now, err = nil, nil
	}
	return t.exclude, err != nil || !bytes.Equal(now, t.excludeWas)
}

// Nested lists the repositories that the index of t registers as
// submodules (gitlinks) and that have a git directory or .git file now
// but were not among known before the sandbox ran: the payload made them,
// and the superproject's git status on the host runs git in each (to see
// whether it changed), with that repository's own configuration.
func Nested(t Tree, known map[string]bool) ([]string, error) {
	links, err := gitlinks(t.Index, t.hashSize)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, l := range links {
		dir := filepath.Join(t.Dir, l)
		if !within(dir, t.Dir) || known[dir] {
			continue
		}
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			out = append(out, dir)
		}
	}
	return out, nil
}

// indexEntry is what nsrun reads of an entry of a git index.
type indexEntry struct {
	name   string
	mode   uint32
	hidden bool // assume-valid or skip-worktree: git does not look at the file
	stat   entryStat
	oid    []byte
}

// entryStat is an entry's stat data as the index keeps it: ctime and
// mtime (seconds, nanoseconds), device, inode, mode, uid, gid, size.
type entryStat [10]uint32

// gitlinks reads the paths of the gitlink entries (mode 160000) of a git
// index, versions 2 to 4. An index that is absent has none; a split index
// keeps entries elsewhere and is refused.
func gitlinks(path string, hashSize int) ([]string, error) {
	var out []string
	err := readIndex(path, hashSize, func(e indexEntry) {
		if e.mode&0o170000 == 0o160000 {
			out = append(out, e.name)
		}
	})
	return out, err
}

// hiddenEntries reads the paths of the entries marked assume-unchanged
// or skip-worktree (git status and git diff do not show their changes),
// and the stat data of every entry.
func hiddenEntries(path string, hashSize int) (map[string]bool, map[string]entryStat, error) {
	out, stats := map[string]bool{}, map[string]entryStat{}
	err := readIndex(path, hashSize, func(e indexEntry) {
		if e.hidden {
			out[e.name] = true
		}
		stats[e.name] = e.stat
	})
	if err != nil {
		return nil, nil, err
	}
	return out, stats, nil
}

// NewlyHidden lists the entries of t's index that are marked
// assume-unchanged or skip-worktree now and were not when the run
// started: the payload's changes to those files do not show in the host's
// git status or git diff.
func NewlyHidden(t Tree) ([]string, error) {
	if t.hidden == nil {
		return nil, nil
	}
	now, _, err := hiddenEntries(t.Index, t.hashSize)
	if err != nil {
		return nil, err
	}
	var out []string
	for n := range now {
		if !t.hidden[n] {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out, nil
}

// NewlyClaimed lists the entries of t's index that record as unchanged a
// file whose content is not the object they name, and whose stat data
// changed during the run (or that are new): git status and git diff trust
// stat data that matches the file's and do not read it, so stat data the
// payload wrote there beside the old object id hides its change to the
// file, as an assume-unchanged mark would. Stat data git itself recorded
// names the file's content, except where a filter or a line-ending
// conversion of .gitattributes makes the object differ from the file.
func NewlyClaimed(t Tree) ([]string, error) {
	if t.stats == nil {
		return nil, nil
	}
	var out []string
	var hashErr error
	err := readIndex(t.Index, t.hashSize, func(e indexEntry) {
		if was, ok := t.stats[e.name]; ok && was == e.stat || e.hidden || hashErr != nil {
			return
		}
		switch e.mode & 0o170000 {
		case 0o100000, 0o120000:
		default:
			return // a gitlink: git compares its HEAD, not stat data
		}
		p := filepath.Join(t.Dir, e.name)
		if !within(p, t.Dir) || !statMatches(p, e.stat) {
			return // git looks at it, and shows what changed
		}
		id, err := blobID(p, e.mode, t.hashSize)
		if errors.Is(err, os.ErrNotExist) {
			return
		}
		if err != nil {
			hashErr = err
			return
		}
		if !bytes.Equal(id, e.oid) {
			out = append(out, e.name)
		}
	})
	if err == nil {
		err = hashErr
	}
	sort.Strings(out)
	return out, err
}

// blobID is the object id git gives the file p of an entry of mode mode
// (a symlink's is that of its target), its content taken as it is.
func blobID(p string, mode uint32, hashSize int) ([]byte, error) {
	h := sha1.New()
	if hashSize == 32 {
		h = sha256.New()
	}
	if mode&0o170000 == 0o120000 {
		target, err := os.Readlink(p)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(h, "blob %d\x00%s", len(target), target)
		return h.Sum(nil), nil
	}
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, nil // no blob: never the entry's
	}
	fmt.Fprintf(h, "blob %d\x00", fi.Size())
	if _, err := io.Copy(h, f); err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	return h.Sum(nil), nil
}

// readIndex calls entry for each entry of a git index, versions 2 to 4,
// with its path, mode, whether git hides its changes (the assume-valid
// flag, or the skip-worktree extended flag), stat data and object id. An
// index that is absent has none; a split index keeps entries elsewhere
// and is refused.
func readIndex(path string, hashSize int, entry func(indexEntry)) error {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if len(b) < 12 || string(b[:4]) != "DIRC" {
		return errors.New("not a git index")
	}
	version := binary.BigEndian.Uint32(b[4:])
	count := binary.BigEndian.Uint32(b[8:])
	if version < 2 || version > 4 {
		return fmt.Errorf("index version %d", version)
	}
	fixed := 40 + hashSize + 2 // stat data and mode, the object id, flags
	var prev []byte
	off := 12
	for i := uint32(0); i < count; i++ {
		if off+fixed > len(b) {
			return errors.New("index ends inside an entry")
		}
		var st entryStat
		for i := range st {
			st[i] = binary.BigEndian.Uint32(b[off+4*i:])
		}
		mode := st[6]
		oid := b[off+40 : off+40+hashSize]
		flags := binary.BigEndian.Uint16(b[off+40+hashSize:])
		start := off
		off += fixed
		hidden := flags&0x8000 != 0 // assume-valid
		if flags&0x4000 != 0 {
			if version < 3 {
				return errors.New("extended flags in a version 2 index")
			}
			if off > len(b)-2 {
				return errors.New("index ends inside an entry")
			}
			hidden = hidden || binary.BigEndian.Uint16(b[off:])&0x4000 != 0 // skip-worktree
			off += 2
		}
		var name []byte
		if version == 4 {
			strip, n := offsetVarint(b[min(off, len(b)):])
			if n == 0 || strip > uint64(len(prev)) {
				return errors.New("bad path compression in the index")
			}
			off += n
			end := bytes.IndexByte(b[min(off, len(b)):], 0)
			if end < 0 {
				return errors.New("index ends inside a path")
			}
			name = append(append([]byte{}, prev[:len(prev)-int(strip)]...), b[off:off+end]...)
			off += end + 1
		} else {
			end := bytes.IndexByte(b[min(off, len(b)):], 0)
			if end < 0 {
				return errors.New("index ends inside a path")
			}
			name = b[off : off+end]
			// 1 to 8 NULs pad the entry to a multiple of 8 bytes.
			off = start + (off-start+end+8)&^7
		}
		prev = name
		entry(indexEntry{name: string(name), mode: mode, hidden: hidden, stat: st, oid: oid})
	}
	// Extensions: four-byte signatures and sizes, up to the final hash.
	for off+8 <= len(b)-hashSize {
		sig := string(b[off : off+4])
		size := int(binary.BigEndian.Uint32(b[off+4:]))
		if sig == "link" {
			return errors.New("a split index (core.splitIndex), whose entries are kept elsewhere")
		}
		off += 8 + size
	}
	return nil
}

// offsetVarint is git's varint of path compression: each byte's high bit
// says another follows, and each continuation adds one before shifting.
func offsetVarint(b []byte) (uint64, int) {
	if len(b) == 0 {
		return 0, 0
	}
	v := uint64(b[0] & 127)
	n := 1
	for b[n-1]&128 != 0 {
		if n >= len(b) || n > 9 {
			return 0, 0
		}
		v = (v+1)<<7 | uint64(b[n]&127)
		n++
	}
	return v, n
}
