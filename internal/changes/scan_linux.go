package changes

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"time"

	"golang.org/x/sys/unix"
)

// source is where a change was found in a kept upper layer.
type source struct {
	layer int
	rel   string      // below the layer's top
	up    string      // the upper layer's file, "" for a deletion
	st    unix.Stat_t // of up
}

// Scan lists the changes kept in dir, against the host as it is now.
func Scan(dir string) (*Manifest, []Change, error) {
	m, err := ReadManifest(dir)
	if err != nil {
		return nil, nil, err
	}
	var out []Change
	for i := range m.Layers {
		s, err := newScanner(dir, m, i)
		if err != nil {
			return m, nil, err
		}
		err = s.walk("")
		s.host.close()
		if err != nil {
			return m, nil, err
		}
		out = append(out, s.out...)
	}
	return m, out, nil
}

type scanner struct {
	m     *Manifest
	layer int
	upper string
	host  *tree
	since time.Time
	made  map[string]bool
	out   []Change
}

func newScanner(dir string, m *Manifest, i int) (*scanner, error) {
	l := m.Layers[i]
	upper := filepath.Join(dir, l.Dir, "upper")
	var st unix.Stat_t
	if err := unix.Lstat(upper, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return nil, fmt.Errorf("layer %s: %s is not a directory", l.Path, upper)
	}
	host, err := openTree(l.Host)
	if err != nil {
		return nil, fmt.Errorf("layer %s: host directory %s: %w", l.Path, l.Host, err)
	}
	made := map[string]bool{}
	for _, r := range l.Made {
		made[filepath.Clean(r)] = true
	}
	return &scanner{m: m, layer: i, upper: upper, host: host, since: m.Since, made: made}, nil
}

func (s *scanner) add(c Change) {
	l := s.m.Layers[s.layer]
	c.layer = s.layer
	c.Host = filepath.Join(l.Host, c.rel)
	c.Path = filepath.Join(l.Path, c.rel)
	s.out = append(s.out, c)
}

// changed says, for a host entry, whether it changed since the run
// began.
func (s *scanner) changed(st unix.Stat_t) bool {
	return !time.Unix(st.Ctim.Unix()).Before(s.since)
}

// walk lists the changes of the upper directory rel.
func (s *scanner) walk(rel string) error {
	names, err := readNames(filepath.Join(s.upper, rel))
	if err != nil {
		return err
	}
	for _, name := range names {
		if err := s.entry(filepath.Join(rel, name)); err != nil {
			return err
		}
	}
	return nil
}

func (s *scanner) entry(rel string) error {
	up := filepath.Join(s.upper, rel)
	var st unix.Stat_t
	if err := unix.Lstat(up, &st); err != nil {
		return err
	}
	h, exists, hostErr := s.host.lstat(rel)
	if s.made[rel] && !exists && hostErr == nil && s.untouched(up, st) {
		return nil // a mount point of nsrun's, nothing of the payload's
	}
	c := Change{source: source{rel: rel, up: up, st: st}}
	if hostErr != nil {
		c.Kind, c.Conflict = Modified, hostErr.Error()
		s.add(c)
		return nil
	}
	typ := st.Mode & unix.S_IFMT
	switch {
	case typ == unix.S_IFCHR && st.Rdev == 0:
		// A whiteout: the payload deleted the host's entry.
		if !exists {
			return nil // gone already
		}
		c = Change{Kind: Deleted, source: source{rel: rel}, Dir: h.Mode&unix.S_IFMT == unix.S_IFDIR}
		c.Conflict = s.treeChanged(rel, h)
		s.add(c)
		return nil
	case typ == unix.S_IFDIR:
		return s.dir(c, h, exists)
	case typ != unix.S_IFREG && typ != unix.S_IFLNK:
		c.Kind, c.Refused = Added, kindName(typ)+": only files, directories and symlinks are applied"
		if exists {
			c.Kind = Modified
		}
		s.add(c)
		return nil
	}
	origin := hasXattr(up, "user.overlay.origin")
	switch {
	case !exists && origin:
		c.Kind, c.Conflict = Modified, "deleted on the host since the run began"
	case !exists:
		c.Kind = Added
	default:
		same, err := s.same(rel, st, h)
		if err != nil {
			return err
		}
		if same {
			return nil // copied up, changed nothing; or the host has it so now
		}
		c.Kind = Modified
		if s.changed(h) {
			c.Conflict = "changed on the host since the run began"
		}
	}
	s.add(c)
	return nil
}

// dir lists a directory of the upper layer: new, replacing a file, made
// anew (opaque: what the host has there and the layer lacks is deleted),
// or changed in mode, then what it holds.
func (s *scanner) dir(c Change, h unix.Stat_t, exists bool) error {
	c.Dir = true
	up := c.up
	switch {
	case !exists:
		c.Kind = Added
		s.add(c)
	case h.Mode&unix.S_IFMT != unix.S_IFDIR:
		c.Kind = Modified
		if s.changed(h) {
			c.Conflict = "changed on the host since the run began"
		}
		s.add(c)
	default:
		if string(getXattr(up, "user.overlay.opaque")) == "y" {
			if err := s.opaque(c.rel); err != nil {
				return err
			}
		}
		if c.st.Mode&0o7777 != h.Mode&0o7777 {
			c.Kind = Modified
			if s.changed(h) {
				c.Conflict = "changed on the host since the run began"
			}
			s.add(c)
		}
	}
	return s.walk(c.rel)
}

// opaque lists as deleted what the host directory rel holds that the
// upper directory made anew there lacks.
func (s *scanner) opaque(rel string) error {
	have, err := readNames(filepath.Join(s.upper, rel))
	if err != nil {
		return err
	}
	keep := map[string]bool{}
	for _, n := range have {
		keep[n] = true
	}
	names, err := s.host.names(rel)
	if err != nil {
		s.add(Change{Kind: Deleted, source: source{rel: rel}, Dir: true, Conflict: err.Error()})
		return nil
	}
	for _, n := range names {
		if keep[n] {
			continue
		}
		r := filepath.Join(rel, n)
		h, _, err := s.host.lstat(r)
		c := Change{Kind: Deleted, source: source{rel: r}, Dir: h.Mode&unix.S_IFMT == unix.S_IFDIR}
		if err != nil {
			c.Conflict = err.Error()
		} else {
			c.Conflict = s.treeChanged(r, h)
		}
		s.add(c)
	}
	return nil
}

// treeChanged returns why the host entry rel (h), and for a directory
// what it holds, may not be deleted: it changed since the run began.
func (s *scanner) treeChanged(rel string, h unix.Stat_t) string {
	if s.changed(h) {
		return "changed on the host since the run began"
	}
	if h.Mode&unix.S_IFMT != unix.S_IFDIR {
		return ""
	}
	names, err := s.host.names(rel)
	if err != nil {
		return err.Error()
	}
	for _, n := range names {
		r := filepath.Join(rel, n)
		st, _, err := s.host.lstat(r)
		if err != nil {
			return err.Error()
		}
		if why := s.treeChanged(r, st); why != "" {
			if why == "changed on the host since the run began" {
				return filepath.Join(s.m.Layers[s.layer].Host, r) + " " + why
			}
			return why
		}
	}
	return ""
}

// untouched reports whether an entry nsrun made holds nothing the payload
// wrote: an empty directory (whose made entries below hold nothing
// either) or an empty file.
func (s *scanner) untouched(up string, st unix.Stat_t) bool {
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG:
		return st.Size == 0
	case unix.S_IFDIR:
		names, err := readNames(up)
		if err != nil {
			return false
		}
		rel, _ := filepath.Rel(s.upper, up)
		for _, n := range names {
			var sub unix.Stat_t
			r := filepath.Join(rel, n)
			if unix.Lstat(filepath.Join(up, n), &sub) != nil || !s.made[r] || !s.untouched(filepath.Join(up, n), sub) {
				return false
			}
		}
		return true
	}
	return false
}

// same reports whether the upper file at rel shows what the host has:
// the same kind, permission bits and content or link target.
func (s *scanner) same(rel string, up, h unix.Stat_t) (bool, error) {
	if up.Mode != h.Mode {
		return false, nil
	}
	if up.Mode&unix.S_IFMT == unix.S_IFLNK {
		a, err := os.Readlink(filepath.Join(s.upper, rel))
		if err != nil {
			return false, err
		}
		b, err := s.host.readlink(rel)
		return err == nil && a == b, err
	}
	if up.Size != h.Size {
		return false, nil
	}
	a, err := os.OpenFile(filepath.Join(s.upper, rel), os.O_RDONLY|unix.O_NOFOLLOW, 0)
	if err != nil {
		return false, err
	}
	defer a.Close()
	b, err := s.host.open(rel)
	if err != nil {
		return false, err
	}
	defer b.Close()
	return sameContent(a, b)
}

func sameContent(a, b io.Reader) (bool, error) {
	ba, bb := make([]byte, 64<<10), make([]byte, 64<<10)
	for {
		na, ea := io.ReadFull(a, ba)
		nb, eb := io.ReadFull(b, bb)
		if na != nb || !bytes.Equal(ba[:na], bb[:nb]) {
			return false, nil
		}
		if ea == io.EOF || ea == io.ErrUnexpectedEOF {
			return eb == io.EOF || eb == io.ErrUnexpectedEOF, nil
		}
		if ea != nil {
			return false, ea
		}
		if eb != nil {
			return false, eb
		}
	}
}

func readNames(dir string) ([]string, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	sort.Strings(names)
	return names, err
}

func kindName(typ uint32) string {
	switch typ {
	case unix.S_IFIFO:
		return "a named pipe"
	case unix.S_IFSOCK:
		return "a socket"
	case unix.S_IFCHR:
		return "a character device"
	case unix.S_IFBLK:
		return "a block device"
	}
	return "a special file"
}

func getXattr(p, name string) []byte {
	buf := make([]byte, 256)
	n, err := unix.Lgetxattr(p, name, buf)
	if err != nil {
		return nil
	}
	return buf[:n]
}

func hasXattr(p, name string) bool {
	_, err := unix.Lgetxattr(p, name, nil)
	return err == nil || errors.Is(err, unix.ERANGE)
}
