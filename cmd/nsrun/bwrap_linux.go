package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/internal/bwrap"
)

// readArgsFD reads --args data from fd to its end and closes fd, as
// bubblewrap does.
func readArgsFD(fd int) ([]byte, error) {
	var data []byte
	buf := make([]byte, 64<<10)
	for {
		n, err := unix.Read(fd, buf)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n == 0 {
			break
		}
		data = append(data, buf[:n]...)
	}
	_ = unix.Close(fd)
	return data, nil
}

// hostIDs is the caller as bubblewrap's checks see it.
func hostIDs() bwrap.Host {
	b, err := os.ReadFile("/proc/sys/user/max_user_namespaces")
	return bwrap.Host{UID: os.Getuid(), GID: os.Getgid(),
		UsernsDisabled: err == nil && strings.TrimSpace(string(b)) == "0"}
}

// newBwrapHost is the real host; cleanup removes what it made.
func newBwrapHost() (bwrapHost, func(), error) {
	cwd, err := os.Getwd()
	if err != nil {
		return bwrapHost{}, nil, fmt.Errorf("getcwd: %w", err)
	}
	noSeccomp, err := envSwitch("NSRUN_BWRAP_SECCOMP", "on", "off")
	if err != nil {
		return bwrapHost{}, nil, err
	}
	noLandlock, err := envSwitch("NSRUN_BWRAP_LANDLOCK", "on", "off")
	if err != nil {
		return bwrapHost{}, nil, err
	}
	var made []string
	h := bwrapHost{
		stat: func(p string) (fs.FileMode, error) {
			fi, err := os.Stat(p)
			if err != nil {
				return 0, err
			}
			return fi.Mode(), nil
		},
		lstat: func(p string) (fs.FileMode, error) {
			fi, err := os.Lstat(p)
			if err != nil {
				return 0, err
			}
			return fi.Mode(), nil
		},
		realpath: filepath.EvalSymlinks,
		fdPath:   fdPath,
		readFD:   readArgsFD,
		cwd:      cwd,
		env:      os.Environ(),
		emptyRoot: func() (string, error) {
			dir, err := os.MkdirTemp("", "nsrun-bwrap-root-")
			if err != nil {
				return "", fmt.Errorf("empty root: %w", err)
			}
			made = append(made, dir)
			return dir, os.Chmod(dir, 0o755)
		},
		noSeccomp:  noSeccomp,
		noLandlock: noLandlock,
		uid:        os.Getuid(),
		maker:      osMaker,
		caps:       effectiveCaps(),
		bounding:   boundingCaps(),
		known:      knownCaps(),
	}
	cleanup := func() {
		for _, d := range made {
			_ = os.Remove(d)
		}
	}
	return h, cleanup, nil
}

// fdPath is the host path fd names, refused unless that path still is
// fd's file (nsrun binds by path).
func fdPath(fd int) (string, error) {
	p, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
	if err != nil {
		return "", unix.EBADF
	}
	var fst, pst unix.Stat_t
	if err := unix.Fstat(fd, &fst); err != nil {
		return "", err
	}
	if err := unix.Stat(p, &pst); err != nil {
		return "", err
	}
	if fst.Dev != pst.Dev || fst.Ino != pst.Ino {
		return "", fmt.Errorf("descriptor %d: its file is no longer at %s", fd, p)
	}
	return p, nil
}

// dieWithParent makes the kernel kill nsrun, and so the sandbox, when
// nsrun's parent dies: bubblewrap's --die-with-parent.
func dieWithParent() error {
	return unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(unix.SIGKILL), 0, 0, 0)
}

// blockOn is --block-fd: wait for a byte (or the end) on fd, then close it.
func blockOn(fd int) {
	b := make([]byte, 1)
	for {
		if _, err := unix.Read(fd, b); !errors.Is(err, unix.EINTR) {
			break
		}
	}
	_ = unix.Close(fd)
}

// inheritedFiles are the descriptors nsrun was given open without
// close-on-exec, but those in skip: bubblewrap passes them on to the
// command, at the same numbers.
func inheritedFiles(skip []int) ([]*os.File, error) {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return nil, fmt.Errorf("listing descriptors: %w", err)
	}
	var files []*os.File
	for _, e := range ents {
		fd, err := strconv.Atoi(e.Name())
		if err != nil || fd < 3 || slices.Contains(skip, fd) {
			continue
		}
		flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
		if err != nil || flags&unix.FD_CLOEXEC != 0 {
			continue
		}
		for len(files) <= fd-3 {
			files = append(files, nil)
		}
		files[fd-3] = os.NewFile(uintptr(fd), "fd "+e.Name())
	}
	return files, nil
}

// lockFile takes a read lock on the host file p, kept until nsrun exits;
// name is the file as the caller named it.
func lockFile(p, name string) error {
	fd, err := unix.Open(p, unix.O_RDONLY|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return &bwrapFailure{fmt.Sprintf("Unable to open lock file %s: %s", name, bwrap.Strerror(err))}
	}
	lk := unix.Flock_t{Type: unix.F_RDLCK, Whence: 0}
	for {
		err = unix.FcntlFlock(uintptr(fd), unix.F_SETLK, &lk)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	if err != nil {
		_ = unix.Close(fd)
		return &bwrapFailure{fmt.Sprintf("Unable to lock file %s: %s", name, bwrap.Strerror(err))}
	}
	return nil
}

// effectiveCaps is the calling thread's effective capabilities (bit N:
// capability N); none where capget fails.
func effectiveCaps() uint64 {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return 0
	}
	return uint64(data[0].Effective) | uint64(data[1].Effective)<<32
}

// knownCaps is every capability the kernel has: those PR_CAPBSET_READ
// answers for (EINVAL past cap_last_cap).
func knownCaps() uint64 {
	var set uint64
	for c := 0; c < 64; c++ {
		if _, err := unix.PrctlRetInt(unix.PR_CAPBSET_READ, uintptr(c), 0, 0, 0); err != nil {
			break
		}
		set |= 1 << c
	}
	return set
}

// boundingCaps is the calling thread's bounding set.
func boundingCaps() uint64 {
	var set uint64
	for c := 0; c < 64; c++ {
		in, err := unix.PrctlRetInt(unix.PR_CAPBSET_READ, uintptr(c), 0, 0, 0)
		if err != nil {
			break // EINVAL: past the last capability
		}
		if in == 1 {
			set |= 1 << c
		}
	}
	return set
}

// namespaceIDs are the inodes of pid's namespaces of names, those that
// can be read.
func namespaceIDs(pid int, names []string) []nsID {
	var out []nsID
	for _, n := range names {
		var st unix.Stat_t
		if err := unix.Stat("/proc/"+strconv.Itoa(pid)+"/ns/"+n, &st); err == nil {
			out = append(out, nsID{n, st.Ino})
		}
	}
	return out
}
