package cgroup

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// ProbeV2 says whether limits can be set through cgroup v2 here: the
// calling process's own cgroup v2 directory (dir) has the memory, pids and
// cpu controllers and the caller may write it. mount is the cgroup v2
// mount point, "" when there is none; the error says what is missing.
func ProbeV2() (mount, dir string, err error) {
	mnt, err := V2Mount()
	if err != nil {
		return "", "", err
	}
	self, err := os.ReadFile("/proc/self/cgroup")
	rel, ok := Own(string(self))
	if err != nil || !ok {
		return mnt, "", errors.New("this process is in no cgroup v2")
	}
	dir = filepath.Join(mnt, rel)
	avail, err := os.ReadFile(filepath.Join(dir, "cgroup.controllers"))
	if err != nil {
		return mnt, dir, err
	}
	if miss := Missing([]string{"memory", "pids", "cpu"}, string(avail)); len(miss) > 0 {
		return mnt, dir, fmt.Errorf("%s has no %s controller (it has: %s)",
			dir, strings.Join(miss, ", "), strings.TrimSpace(string(avail)))
	}
	if unix.Access(dir, unix.W_OK) != nil {
		return mnt, dir, errors.New(dir + " is not writable by this user (limits need a delegated subtree)")
	}
	return mnt, dir, nil
}
