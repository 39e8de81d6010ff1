package changes

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// Keep prepares dir to keep the upper layers of these overlays and returns
// the directory of each, which holds its upper and work directories, and
// a lock on dir to hold until the sandbox is gone (two overlays on one
// upper layer are undefined; a second run is refused). dir is made (0700)
// when missing; it must be the caller's, a directory and no symlink,
// writable by no one else. One that keeps the layers of exactly these
// overlays already, from an earlier run not yet applied, is taken up again
// with its manifest (and so its time); otherwise it must be empty. modes
// are the permission bits of each overlay's host directory, for its upper
// directory (the top directory the overlay shows).
func Keep(dir string, layers []Layer, modes []uint32) (dirs []string, lock *os.File, err error) {
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return nil, nil, err
	}
	lock, err = os.OpenFile(dir, os.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW, 0)
	if err != nil {
		if fi, lerr := os.Lstat(dir); lerr == nil && fi.Mode()&os.ModeSymlink != 0 {
			err = errors.New("is a symlink")
		}
		return nil, nil, err
	}
	defer func() {
		if err != nil {
			lock.Close()
			lock = nil
		}
	}()
	var st unix.Stat_t
	if err := unix.Fstat(int(lock.Fd()), &st); err != nil {
		return nil, nil, err
	}
	switch {
	case int(st.Uid) != os.Getuid():
		return nil, nil, fmt.Errorf("belongs to uid %d, not to you", st.Uid)
	case st.Mode&0o022 != 0:
		return nil, nil, fmt.Errorf("is writable by others (mode %o)", st.Mode&0o777)
	}
	if err := unix.Flock(int(lock.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		return nil, nil, errors.New("is in use by another run")
	}
	dirs, err = keep(dir, layers, modes)
	return dirs, lock, err
}

func keep(dir string, layers []Layer, modes []uint32) ([]string, error) {
	for i := range layers {
		layers[i].Dir = strconv.Itoa(i + 1)
	}
	dirs := make([]string, len(layers))
	for i, l := range layers {
		dirs[i] = filepath.Join(dir, l.Dir)
	}
	m, err := ReadManifest(dir)
	switch {
	case err == nil && !m.Applied.IsZero():
		return nil, fmt.Errorf("its changes were applied at %s; keep new ones in another directory", m.Applied.Format(time.RFC3339))
	case err == nil && !m.Same(layers):
		return nil, fmt.Errorf("keeps the changes of other overlays (%s); keep these in another directory", describe(m.Layers))
	case err == nil:
		return dirs, nil
	case !errors.Is(err, ErrNoManifest):
		return nil, err
	}
	if ents, err := os.ReadDir(dir); err != nil || len(ents) > 0 {
		if err == nil {
			err = errors.New("is not empty and keeps no changes of nsrun's")
		}
		return nil, err
	}
	for i, d := range dirs {
		for _, sub := range []struct {
			name string
			mode uint32
		}{{"", 0o700}, {"upper", modes[i] & 0o1777}, {"work", 0o700}} {
			p := filepath.Join(d, sub.name)
			if err := unix.Mkdir(p, 0o700); err != nil {
				return nil, fmt.Errorf("make %s: %w", p, err)
			}
			if err := unix.Chmod(p, sub.mode); err != nil {
				return nil, fmt.Errorf("chmod %s: %w", p, err)
			}
		}
	}
	return dirs, writeManifest(dir, layers)
}

// writeManifest writes a new manifest; its time is the file's own ctime,
// the kernel's clock for file changes, less Margin.
func writeManifest(dir string, layers []Layer) error {
	f, err := os.OpenFile(filepath.Join(dir, ManifestName), os.O_WRONLY|os.O_CREATE|os.O_EXCL|unix.O_NOFOLLOW, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		return err
	}
	since := time.Unix(st.Ctim.Unix()).Add(-Margin).UTC()
	b, err := json.MarshalIndent(Manifest{Version: 1, Since: since, Layers: layers}, "", "  ")
	if err != nil {
		return err
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		return err
	}
	return f.Sync()
}

// markApplied records in dir's manifest that its changes were applied.
func markApplied(dir string, m *Manifest) error {
	m.Applied = time.Now().UTC()
	return rewriteManifest(dir, m)
}

// rewriteManifest replaces dir's manifest with m.
func rewriteManifest(dir string, m *Manifest) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, "."+ManifestName+".new")
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, ManifestName))
}

func describe(layers []Layer) string {
	s := ""
	for i, l := range layers {
		if i > 0 {
			s += ", "
		}
		s += l.Path
	}
	return s
}

// Tidy empties the work directories of dir's layers once nothing has
// them mounted: overlayfs leaves a mode-0 directory there, with a whiteout
// in it, that its owner could not remove without changing its mode.
func Tidy(dir string) error {
	m, err := ReadManifest(dir)
	if err != nil {
		return err
	}
	var first error
	for _, l := range m.Layers {
		w := filepath.Join(dir, l.Dir, "work", "work")
		var st unix.Stat_t
		if unix.Lstat(w, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR {
			continue
		}
		if err := unix.Chmod(w, 0o700); err == nil {
			err = os.RemoveAll(w)
			if first == nil {
				first = err
			}
		} else if first == nil {
			first = err
		}
	}
	return first
}

// Made records in dir's manifest the entries nsrun makes in the upper
// layer of layer i (mount points its host directory lacks), which Scan
// then leaves out while they hold nothing the payload wrote.
func Made(dir string, i int, rels []string) error {
	m, err := ReadManifest(dir)
	if err != nil {
		return err
	}
	if i >= len(m.Layers) {
		return fmt.Errorf("no layer %d", i)
	}
	seen := map[string]bool{}
	for _, r := range m.Layers[i].Made {
		seen[r] = true
	}
	for _, r := range rels {
		if !seen[r] {
			seen[r] = true
			m.Layers[i].Made = append(m.Layers[i].Made, r)
		}
	}
	return rewriteManifest(dir, m)
}
