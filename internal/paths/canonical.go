package paths

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Canonical resolves every symlink in p, made absolute against cwd, and
// stats the result. A path that does not exist is ErrNoSuchPath.
func Canonical(p, cwd string) (string, fs.FileInfo, error) {
	var r Resolver
	defer r.Close()
	return r.Canonical(p, cwd)
}

// Canonical is the package's Canonical.
func (r *Resolver) Canonical(p, cwd string) (string, fs.FileInfo, error) {
	if p == "" {
		return "", nil, errors.New("empty path")
	}
	if strings.ContainsRune(p, 0) {
		return "", nil, errors.New("path contains a NUL byte")
	}
	abs := Abs(p, cwd)
	if canon, info, ok := r.fast(abs, p); ok {
		return canon, info, nil
	}
	canon, err := filepath.EvalSymlinks(abs)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", nil, ErrNoSuchPath
		}
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return "", nil, fmt.Errorf("%s: %w", pe.Path, pe.Err)
		}
		return "", nil, err
	}
	info, err := os.Lstat(canon)
	if err != nil {
		return "", nil, fmt.Errorf("%s: %w", canon, errors.Unwrap(err))
	}
	return canon, info, nil
}

// ErrNoSuchPath is a path that does not exist.
var ErrNoSuchPath = errors.New("no such file or directory")

// FileKind names a file type for error messages ("a directory").
func FileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m.IsDir():
		return "a directory"
	case m.IsRegular():
		return "a regular file"
	}
	return "a special file"
}
