package nsrun

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// cgroupV2Mount finds where the cgroup v2 hierarchy is mounted.
func cgroupV2Mount() (string, error) {
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(b), "\n") {
		pre, post, ok := strings.Cut(line, " - ")
		if f := strings.Fields(pre); ok && strings.HasPrefix(post, "cgroup2 ") && len(f) >= 5 {
			return f[4], nil
		}
	}
	return "", errors.New("no cgroup v2 hierarchy is mounted")
}

// sandboxCgroup is the cgroup nsrun makes for one sandbox, under its own.
type sandboxCgroup struct {
	dir string
	fd  int      // O_PATH descriptor, for CLONE_INTO_CGROUP
	v1  *v1Group // instead, where the controllers are on cgroup v1
}

// newCgroup makes a cgroup for the policy's limits under this process's
// own cgroup v2, or says exactly why it cannot. Cgroups left by nsrun
// processes that died are removed first.
func newCgroup(p *Policy) (*sandboxCgroup, error) {
	files, need := cgroupFiles(p)
	if len(need) == 0 {
		return nil, errors.New("no cgroup limit asked for")
	}
	fail := func(err error) error { return &LimitError{Option: need[0], Err: err} }
	// Without cgroup v2 at all (a cgroup v1 host, or a container on a
	// hybrid one), v1 is all there is.
	orV1 := func(err error) (*sandboxCgroup, error) {
		g, v1err := newCgroupV1(p)
		if v1err == nil {
			return &sandboxCgroup{fd: -1, v1: g}, nil
		}
		return nil, fail(fmt.Errorf("%v, and cgroup v1 failed too: %v", err, v1err))
	}
	mnt, err := cgroupV2Mount()
	if err != nil {
		return orV1(err)
	}
	self, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return nil, fail(err)
	}
	rel, ok := ownCgroup(string(self))
	if !ok {
		return orV1(errors.New("this process is in no cgroup v2"))
	}
	parent := filepath.Join(mnt, rel)
	avail, err := os.ReadFile(filepath.Join(parent, "cgroup.controllers"))
	if err != nil {
		return nil, fail(err)
	}
	if miss := missingControllers(need, string(avail)); len(miss) > 0 {
		g, v1err := newCgroupV1(p)
		if v1err == nil {
			return &sandboxCgroup{fd: -1, v1: g}, nil
		}
		return nil, &LimitError{Option: miss[0], Err: fmt.Errorf("the cgroup v2 hierarchy at %s has no %s controller (it has: %s), and cgroup v1 failed too: %v",
			parent, miss[0], strings.TrimSpace(string(avail)), v1err)}
	}
	removeStaleCgroups(parent)
	var enable []string
	for _, c := range need {
		enable = append(enable, "+"+c)
	}
	if err := os.WriteFile(filepath.Join(parent, "cgroup.subtree_control"), []byte(strings.Join(enable, " ")), 0); err != nil {
		return nil, fail(fmt.Errorf("enable %s in %s: %w (a cgroup with processes of its own cannot hand controllers down: start nsrun in a delegated, empty subtree, e.g. systemd-run --user --scope -p Delegate=yes)", strings.Join(need, ", "), parent, err))
	}
	cg, err := createCgroup(parent, files)
	if err != nil {
		return nil, fail(err)
	}
	return cg, nil
}

// newKillCgroup makes a cgroup v2 with no limits under this process's own,
// for a sandbox without a PID namespace: cgroup.kill then ends every
// process in it. It returns nil where it cannot (no cgroup v2, a hierarchy
// this user may not write, a kernel without cgroup.kill).
func newKillCgroup() *sandboxCgroup {
	mnt, err := cgroupV2Mount()
	if err != nil {
		return nil
	}
	self, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return nil
	}
	rel, ok := ownCgroup(string(self))
	if !ok {
		return nil
	}
	parent := filepath.Join(mnt, rel)
	if unix.Access(parent, unix.W_OK) != nil {
		return nil
	}
	removeStaleCgroups(parent)
	cg, err := createCgroup(parent, nil)
	if err != nil {
		return nil
	}
	if _, err := os.Stat(filepath.Join(cg.dir, "cgroup.kill")); err != nil {
		cg.remove()
		return nil
	}
	return cg
}

// kill ends every process in a cgroup v2 (5.14, cgroup.kill).
func (cg *sandboxCgroup) kill() {
	if cg.v1 == nil {
		_ = os.WriteFile(filepath.Join(cg.dir, "cgroup.kill"), []byte("1"), 0)
	}
}

// createCgroup makes the sandbox's cgroup under parent, writes files
// into it and opens it for CLONE_INTO_CGROUP.
func createCgroup(parent string, files map[string]string) (*sandboxCgroup, error) {
	dir := filepath.Join(parent, fmt.Sprintf("nsrun-%d-%d", os.Getpid(), time.Now().UnixNano()))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", dir, err)
	}
	cg := &sandboxCgroup{dir: dir, fd: -1}
	for name, value := range files {
		err := os.WriteFile(filepath.Join(dir, name), []byte(value), 0)
		if errors.Is(err, os.ErrNotExist) && name == "memory.swap.max" {
			continue // no swap accounting: no swap to bypass the limit with
		}
		if err != nil {
			cg.remove()
			return nil, fmt.Errorf("write %s=%s: %w", name, value, err)
		}
	}
	fd, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		cg.remove()
		return nil, err
	}
	cg.fd = fd
	return cg, nil
}

// events reads what the limits did: processes killed for memory, forks
// refused.
func (cg *sandboxCgroup) events() (oomKills, pidsRefused uint64) {
	if cg.v1 != nil {
		return cg.v1.events()
	}
	mem, _ := os.ReadFile(filepath.Join(cg.dir, "memory.events"))
	pids, _ := os.ReadFile(filepath.Join(cg.dir, "pids.events"))
	return eventCount(string(mem), "oom_kill"), eventCount(string(pids), "max")
}

// remove deletes the cgroup once its processes are gone; a zombie may
// take a moment to leave.
func (cg *sandboxCgroup) remove() {
	if cg.v1 != nil {
		cg.v1.remove()
		return
	}
	if cg.fd >= 0 {
		unix.Close(cg.fd)
		cg.fd = -1
	}
	removeCgroupDir(cg.dir)
}

// removeCgroupDir removes an empty cgroup, waiting up to half a second for
// its last processes (zombies not yet reaped) to leave it.
func removeCgroupDir(dir string) {
	for i := 0; i < 50; i++ {
		if err := unix.Rmdir(dir); err == nil || errors.Is(err, unix.ENOENT) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// removeStaleCgroups removes the cgroups of nsrun processes that died
// before they could.
func removeStaleCgroups(parent string) {
	ents, _ := os.ReadDir(parent)
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), "nsrun-")
		if !ok || !e.IsDir() {
			continue
		}
		pidText, _, _ := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if err != nil || !errors.Is(unix.Kill(pid, 0), unix.ESRCH) {
			continue // not nsrun's, or its process still runs
		}
		unix.Rmdir(filepath.Join(parent, e.Name()))
	}
}
