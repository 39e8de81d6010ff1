package gitguard

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
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

// gitlinks reads the paths of the gitlink entries (mode 160000) of a git
// index, versions 2 to 4. An index that is absent has none; a split index
// keeps entries elsewhere and is refused.
func gitlinks(path string, hashSize int) ([]string, error) {
	var out []string
	err := readIndex(path, hashSize, func(name string, mode uint32, _ bool) {
		if mode&0o170000 == 0o160000 {
			out = append(out, name)
		}
	})
	return out, err
}

// hiddenEntries reads the paths of the entries marked assume-unchanged
// or skip-worktree: git status and git diff do not show their changes.
func hiddenEntries(path string, hashSize int) (map[string]bool, error) {
	out := map[string]bool{}
	err := readIndex(path, hashSize, func(name string, _ uint32, hidden bool) {
		if hidden {
			out[name] = true
		}
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// NewlyHidden lists the entries of t's index that are marked
// assume-unchanged or skip-worktree now and were not when the run
// started: the payload's changes to those files do not show in the host's
// git status or git diff.
func NewlyHidden(t Tree) ([]string, error) {
	if t.hidden == nil {
		return nil, nil
	}
	now, err := hiddenEntries(t.Index, t.hashSize)
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

// readIndex calls entry for each entry of a git index, versions 2 to 4,
// with its path, mode, and whether git hides its changes (the
// assume-valid flag, or the skip-worktree extended flag). An index that
// is absent has none; a split index keeps entries elsewhere and is
// refused.
func readIndex(path string, hashSize int, entry func(name string, mode uint32, hidden bool)) error {
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
		mode := binary.BigEndian.Uint32(b[off+24:])
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
		entry(string(name), mode, hidden)
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
