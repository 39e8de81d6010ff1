package cgroup

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/internal/mountinfo"
)

// Group is the cgroup of one sandbox, under the caller's own.
type Group struct {
	dir string
	fd  int      // O_PATH descriptor, for CLONE_INTO_CGROUP
	v1  *v1Group // instead, where the controllers are on cgroup v1
}

// V2Mount finds where the cgroup v2 hierarchy is mounted.
func V2Mount() (string, error) {
	entries, err := mountinfo.Self()
	if err != nil {
		return "", err
	}
	if mnt, ok := v2Mount(entries); ok {
		return mnt, nil
	}
	return "", errors.New("no cgroup v2 hierarchy is mounted")
}

// ownDir is the directory of the caller's own cgroup v2.
func ownDir() (string, error) {
	mnt, err := V2Mount()
	if err != nil {
		return "", err
	}
	self, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", err
	}
	rel, ok := Own(string(self))
	if !ok {
		return "", errors.New("this process is in no cgroup v2")
	}
	return filepath.Join(mnt, rel), nil
}

// New makes a group with limits l under this process's own cgroup v2, or
// its v1 hierarchies where v2 lacks the controllers, or says exactly why
// it cannot (an *Error). Groups left by nsrun processes that died are
// removed first.
func New(l Limits) (*Group, error) {
	files, need := Files(l)
	if len(need) == 0 {
		return nil, errors.New("no cgroup limit asked for")
	}
	fail := func(err error) error { return &Error{Controller: need[0], Err: err} }
	// Without cgroup v2 at all (a cgroup v1 host, or a container on a
	// hybrid one), v1 is all there is.
	orV1 := func(err error) (*Group, error) {
		g, v1err := newV1(l)
		if v1err == nil {
			return &Group{fd: -1, v1: g}, nil
		}
		return nil, neither(need[0], err.Error(), v1err)
	}
	parent, err := ownDir()
	if err != nil {
		return orV1(err)
	}
	avail, err := os.ReadFile(filepath.Join(parent, "cgroup.controllers"))
	if err != nil {
		return nil, fail(err)
	}
	if miss := Missing(need, string(avail)); len(miss) > 0 {
		g, v1err := newV1(l)
		if v1err == nil {
			return &Group{fd: -1, v1: g}, nil
		}
		return nil, neither(miss[0], fmt.Sprintf("cgroup v2 at %s lacks the %s controller (it has: %s)",
			parent, miss[0], strings.TrimSpace(string(avail))), v1err)
	}
	removeStale(parent)
	var enable []string
	for _, c := range need {
		enable = append(enable, "+"+c)
	}
	if err := os.WriteFile(filepath.Join(parent, "cgroup.subtree_control"), []byte(strings.Join(enable, " ")), 0); err != nil {
		return nil, fail(fmt.Errorf("enable %s in %s: %w (a cgroup with processes of its own cannot hand controllers down: start nsrun in a delegated, empty subtree, e.g. systemd-run --user --scope -p Delegate=yes)", strings.Join(need, ", "), parent, err))
	}
	g, err := create(parent, files)
	if err != nil {
		return nil, fail(err)
	}
	return g, nil
}

// NewKill makes a cgroup v2 with no limits under this process's own, for
// a sandbox without a PID namespace: Kill then ends every process in it.
// It returns nil where it cannot (no cgroup v2, a hierarchy this user may
// not write, a kernel without cgroup.kill).
func NewKill() *Group {
	parent, err := ownDir()
	if err != nil || unix.Access(parent, unix.W_OK) != nil {
		return nil
	}
	removeStale(parent)
	g, err := create(parent, nil)
	if err != nil {
		return nil
	}
	if _, err := os.Stat(filepath.Join(g.dir, "cgroup.kill")); err != nil {
		g.Remove()
		return nil
	}
	return g
}

// create makes a group under parent, writes files into it and opens it
// for CLONE_INTO_CGROUP.
func create(parent string, files map[string]string) (*Group, error) {
	dir := filepath.Join(parent, fmt.Sprintf("nsrun-%d-%d", os.Getpid(), time.Now().UnixNano()))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", dir, err)
	}
	g := &Group{dir: dir, fd: -1}
	for name, value := range files {
		err := os.WriteFile(filepath.Join(dir, name), []byte(value), 0)
		if errors.Is(err, os.ErrNotExist) && name == "memory.swap.max" {
			continue // no swap accounting: no swap to bypass the limit with
		}
		if err != nil {
			g.Remove()
			return nil, fmt.Errorf("write %s=%s: %w", name, value, err)
		}
	}
	fd, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		g.Remove()
		return nil, fmt.Errorf("open %s: %w", dir, err)
	}
	g.fd = fd
	return g, nil
}

// CloneFD is the descriptor to start the first process in the group with
// (SysProcAttr.CgroupFD); false on cgroup v1, where Enter moves it in.
func (g *Group) CloneFD() (int, bool) { return g.fd, g.v1 == nil && g.fd >= 0 }

// Version is "v2" or "v1".
func (g *Group) Version() string {
	if g.v1 != nil {
		return "v1"
	}
	return "v2"
}

// Dir is the group's directory (its memory controller's on v1).
func (g *Group) Dir() string {
	if g.v1 != nil {
		return g.v1.dirs["memory"]
	}
	return g.dir
}

// Enter moves pid into the group on cgroup v1; on v2 the process was born
// in it and there is nothing to do.
func (g *Group) Enter(pid int) error {
	if g.v1 == nil {
		return nil
	}
	return g.v1.add(pid)
}

// MoveFD moves pid into the cgroup v2 directory dirfd (a descriptor
// CloneFD gave): for a process that could not be started in it because
// clone3, which CLONE_INTO_CGROUP needs, is refused (a container's seccomp
// profile answers it with ENOSYS). What it used before counts where it
// was; its threads and later children count here.
func MoveFD(dirfd, pid int) error {
	fd, err := unix.Openat(dirfd, "cgroup.procs", unix.O_WRONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("open cgroup.procs: %w", err)
	}
	defer unix.Close(fd)
	if _, err := unix.Write(fd, []byte(strconv.Itoa(pid))); err != nil {
		return fmt.Errorf("move %d into the cgroup (cgroup.procs): %w", pid, err)
	}
	return nil
}

// Events is what the limits did.
type Events struct {
	OOMKills    uint64 // processes the memory limit killed
	PidsRefused uint64 // forks the pids limit refused
}

// Events reads what the limits did.
func (g *Group) Events() Events {
	if g.v1 != nil {
		return g.v1.events()
	}
	mem, _ := os.ReadFile(filepath.Join(g.dir, "memory.events"))
	pids, _ := os.ReadFile(filepath.Join(g.dir, "pids.events"))
	return Events{eventCount(string(mem), "oom_kill"), eventCount(string(pids), "max")}
}

// Kill ends every process in a cgroup v2 group (cgroup.kill, 5.14); on
// v1 it does nothing.
func (g *Group) Kill() {
	if g.v1 == nil {
		_ = os.WriteFile(filepath.Join(g.dir, "cgroup.kill"), []byte("1"), 0)
	}
}

// Remove deletes the group once its processes are gone; a zombie may take
// a moment to leave.
func (g *Group) Remove() {
	if g.v1 != nil {
		g.v1.remove()
		return
	}
	if g.fd >= 0 {
		unix.Close(g.fd)
		g.fd = -1
	}
	removeDir(g.dir)
}

// removeDir removes an empty cgroup, waiting up to half a second for its
// last processes (zombies not yet reaped) to leave it.
func removeDir(dir string) {
	for i := 0; i < 50; i++ {
		if err := unix.Rmdir(dir); err == nil || errors.Is(err, unix.ENOENT) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// removeStale removes the groups of nsrun processes that died before they
// could.
func removeStale(parent string) {
	ents, _ := os.ReadDir(parent)
	for _, e := range ents {
		pid, ok := staleOwner(e.Name())
		if !ok || !e.IsDir() || !errors.Is(unix.Kill(pid, 0), unix.ESRCH) {
			continue // not nsrun's, or its process still runs
		}
		unix.Rmdir(filepath.Join(parent, e.Name()))
	}
}
