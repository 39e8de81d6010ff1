package main

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strings"

	"github.com/nsrun/nsrun/internal/bwrap"
)

// hostMaker changes the host as bubblewrap changes it through a writable
// bind of a host tree: it makes directories, mount points and symlinks
// there, and changes modes. Tests give their own.
type hostMaker struct {
	// Each acts on p, a path under base (the host directory a writable
	// bind shows), following no symlink below base.
	//
	// mkdir makes the directory p with the permission bits mode, the
	// umask not applied; fs.ErrExist where something is there.
	mkdir func(base, p string, mode fs.FileMode) error
	// mkfile makes the empty regular file p with mode; fs.ErrExist where
	// something is there.
	mkfile   func(base, p string, mode fs.FileMode) error
	symlink  func(base, target, p string) error
	readlink func(base, p string) (string, error)
	chmod    func(base, p string, mode fs.FileMode) error
}

// makeOnHost does, in order, what bubblewrap's operations do to the host
// through a writable bind of a host tree (the root's too): the parents
// and the mount points of later mounts, --dir, --symlink and --chmod.
// It returns the operations left for the policy: a directory or symlink
// made on the host is shown by the bind that holds it.
func makeOnHost(ops []bop, h bwrapHost) ([]bop, error) {
	if h.maker == nil {
		return ops, nil
	}
	m := h.maker
	var out []bop
	for i, o := range ops {
		host, base, ok := writableHostPath(ops[:i], o.Dest)
		if !ok || o.Dest == "/" || underSpecial(o.Dest) != "" {
			out = append(out, o)
			continue
		}
		// bubblewrap resolves the place inside the sandbox; nsrun makes it
		// on the host, and so follows no host symlink on the way there.
		last := host
		if o.Kind == bwrap.Symlink {
			last = filepath.Dir(host)
		}
		for p := last; p != base && p != "/"; p = filepath.Dir(p) {
			if lm, err := h.lstat(p); err == nil && lm&fs.ModeSymlink != 0 {
				return nil, refuse(opArgs(o), "nsrun makes nothing on the host through a symlink ("+p+")")
			}
		}
		switch o.Kind {
		case bwrap.Dir:
			if err := makeParents(m, base, host, o.Dest, o.Perms); err != nil {
				return nil, err
			}
			if err := m.mkdir(base, host, fs.FileMode(o.Perms)); err != nil && !errors.Is(err, fs.ErrExist) {
				return nil, &bwrapFailure{fmt.Sprintf("Can't create file %s: %s", o.Op.Dest, bwrap.Strerror(err))}
			}
			continue
		case bwrap.Symlink:
			if err := makeParents(m, base, host, o.Dest, -1); err != nil {
				return nil, err
			}
			if err := m.symlink(base, o.Op.Source, host); err != nil {
				target, rerr := m.readlink(base, host)
				if !errors.Is(err, fs.ErrExist) || rerr != nil {
					return nil, &bwrapFailure{fmt.Sprintf("Can't make symlink at %s: %s", o.Op.Dest, bwrap.Strerror(err))}
				}
				if target != o.Op.Source {
					return nil, &bwrapFailure{fmt.Sprintf("Can't make symlink at %s: existing destination is %s", o.Op.Dest, target)}
				}
			}
			continue
		case bwrap.Chmod:
			if err := m.chmod(base, host, fs.FileMode(o.Perms)); err != nil {
				return nil, &bwrapFailure{fmt.Sprintf("Can't chmod %#o %s: %s", o.Perms, o.Op.Dest, bwrap.Strerror(err))}
			}
			continue
		}
		if isMount(o.Kind) {
			if err := makeParents(m, base, host, o.Dest, -1); err != nil {
				return nil, err
			}
			if err := makeMountPoint(m, base, host, o); err != nil {
				return nil, err
			}
		}
		out = append(out, o)
	}
	return out, nil
}

// makeMountPoint makes what a mount needs at host where nothing is: a
// directory (0755), or for a bind of a non-directory an empty file
// (0444), as bubblewrap makes them.
func makeMountPoint(m *hostMaker, base, host string, o bop) error {
	dir := o.Kind != bwrap.BindData && o.Kind != bwrap.ROBindData
	if o.Kind == bwrap.Bind || o.Kind == bwrap.ROBind || o.Kind == bwrap.DevBind {
		dir = o.mode.IsDir()
	}
	var err error
	if dir {
		err = m.mkdir(base, host, 0o755)
	} else {
		err = m.mkfile(base, host, 0o444)
	}
	if err != nil && !errors.Is(err, fs.ErrExist) {
		return &bwrapFailure{fmt.Sprintf("Can't create file %s: %s", o.Op.Dest, bwrap.Strerror(err))}
	}
	return nil
}

// makeParents makes the missing directories between base and host, the
// place of dest: 0755, without the group's or the others' bits where perms (-1:
// none) gives them none, as bubblewrap does.
func makeParents(m *hostMaker, base, host, dest string, perms int) error {
	mode := fs.FileMode(0o755)
	if perms >= 0 && perms&0o070 == 0 {
		mode &^= 0o050
	}
	if perms >= 0 && perms&0o007 == 0 {
		mode &^= 0o005
	}
	var missing []string
	for d := filepath.Dir(host); d != base && d != "/" && d != "."; d = filepath.Dir(d) {
		missing = append(missing, d)
	}
	for i := len(missing) - 1; i >= 0; i-- {
		if err := m.mkdir(base, missing[i], mode); err != nil && !errors.Is(err, fs.ErrExist) {
			return &bwrapFailure{fmt.Sprintf("Can't mkdir parents for %s: %s", dest, bwrap.Strerror(err))}
		}
	}
	return nil
}

// writableHostPath is the host path at dest when the last mount over it
// among ops is a writable bind of a host directory, and the directory it
// binds (base).
func writableHostPath(ops []bop, dest string) (host, base string, ok bool) {
	for j := len(ops) - 1; j >= 0; j-- {
		o := ops[j]
		if !isMount(o.Kind) || !within(dest, o.Dest) {
			continue
		}
		if o.Kind != bwrap.Bind || o.readOnly || !o.mode.IsDir() {
			return "", "", false
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(dest, o.Dest), "/")
		return path.Join(o.Source, rel), o.Source, true
	}
	return "", "", false
}
