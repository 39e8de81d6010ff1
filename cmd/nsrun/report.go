package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/nsrun/nsrun"
)

// reportFile is where --report goes. A regular file is written only once
// the sandbox is gone, and atomically: a new file in the target directory
// renamed over the name, opened without following a symlink at any step,
// so that whatever the payload left at that name (a forged report, a
// symlink to a file it wants overwritten, a directory) is replaced, never
// written through. "-" (stderr) and special files (/dev/fd/N, a FIFO) are
// opened before the run and written in place.
type reportFile struct {
	name    string   // as given
	special *os.File // written in place when set
	owned   bool     // special was opened here and is closed after writing
	dir     string   // the canonical directory of a regular file
	base    string   // its name in dir
}

// openReport checks the report's place before the run: a special file is
// opened, a regular file's directory must exist (its symlinks are resolved
// now, from the host's state before the sandbox runs); the name itself is
// never followed.
func openReport(name string, stderr *os.File) (*reportFile, error) {
	rf := &reportFile{name: name}
	if name == "-" {
		rf.special = stderr
		return rf, nil
	}
	abs, err := filepath.Abs(name)
	if err != nil {
		return nil, err
	}
	if strings.HasPrefix(abs, "/dev/") || strings.HasPrefix(abs, "/proc/") {
		return rf, rf.openSpecial(abs)
	}
	if fi, err := os.Lstat(abs); err == nil {
		switch {
		case fi.IsDir():
			return nil, errors.New("is a directory")
		case fi.Mode()&(fs.ModeNamedPipe|fs.ModeCharDevice) != 0:
			return rf, rf.openSpecial(abs)
		}
	}
	dir, err := filepath.EvalSymlinks(filepath.Dir(abs))
	if err != nil {
		return nil, fmt.Errorf("directory %s: %w", filepath.Dir(abs), errors.Unwrap(err))
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", dir)
	}
	if err := writable(dir); err != nil {
		return nil, fmt.Errorf("directory %s: %w", dir, err)
	}
	rf.dir, rf.base = dir, filepath.Base(abs)
	return rf, nil
}

func (rf *reportFile) openSpecial(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	rf.special, rf.owned = f, true
	return nil
}

// write writes r, after the sandbox is gone.
func (rf *reportFile) write(r *nsrun.Report) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return err
	}
	if rf.special != nil {
		_, err := rf.special.Write(b.Bytes())
		if rf.owned {
			if cerr := rf.special.Close(); err == nil {
				err = cerr
			}
		}
		return err
	}
	return replaceFile(rf.dir, rf.base, b.Bytes())
}
