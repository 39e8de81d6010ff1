package sandbox

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"

	"github.com/nsrun/nsrun/cgroup"
	"github.com/nsrun/nsrun/internal/launch"
	"github.com/nsrun/nsrun/ns"
	"github.com/nsrun/nsrun/reexec"
)

// ProbeItem is one capability of the host, as the root package's probe
// says it.
type ProbeItem struct {
	OK     bool
	Detail string
}

// ProbeUserns creates the namespaces of a sandbox, as the init gets them,
// and in them a fresh procfs and sysfs.
func ProbeUserns() (userns, procfs, sysfs ProbeItem) {
	uid, gid := os.Getuid(), os.Getgid()
	uids, gids := ns.Maps(uid, uid, gid, gid)
	var stderr strings.Builder
	cmd := &exec.Cmd{Path: reexec.Self, Args: []string{launch.ProbeStage}, Env: []string{}, Stderr: &stderr,
		SysProcAttr: &syscall.SysProcAttr{Cloneflags: ns.CloneFlags(false), UidMappings: uids, GidMappings: gids, AmbientCaps: ns.SetupCaps}}
	if err := cmd.Start(); err != nil {
		why := ns.Explain(fmt.Errorf("create user, mount, pid, ipc, uts, cgroup and net namespaces: %w", err), ns.ReadSettings(), uid).Error()
		return ProbeItem{Detail: why}, ProbeItem{Detail: "not tried: no user namespace"}, ProbeItem{Detail: "not tried: no user namespace"}
	}
	userns = ProbeItem{OK: true, Detail: fmt.Sprintf("all namespaces can be created as uid %d", uid)}
	procfs = ProbeItem{OK: true, Detail: "a fresh procfs mounts in a new PID namespace"}
	sysfs = ProbeItem{OK: true, Detail: "a fresh sysfs mounts in a new network namespace"}
	err := cmd.Wait()
	if err == nil {
		return userns, procfs, sysfs
	}
	why := strings.TrimSpace(stderr.String())
	if why == "" {
		why = err.Error()
	}
	switch cmd.ProcessState.ExitCode() {
	case launch.ProbeSysFailed:
		sysfs = ProbeItem{Detail: "mount sysfs in a new network namespace: " + why + "; --sys host works instead"}
	default:
		procfs = ProbeItem{Detail: "mount proc in a new PID namespace: " + why + "; --proc host works instead (partial)"}
		sysfs = ProbeItem{Detail: "not tried: no procfs"}
	}
	return userns, procfs, sysfs
}

// ProbeLimits tries each cgroup limit as a sandbox would get it (TryCgroup)
// and says which work; the map gives "v1" or "v2" for each that does, by
// its option's name, and is nil when none does.
func ProbeLimits() (ProbeItem, map[string]string) {
	via := map[string]string{}
	var parts []string
	for _, lim := range []struct {
		option string
		limits cgroup.Limits
	}{
		{"memory", cgroup.Limits{Memory: 64 << 20}},
		{"pids", cgroup.Limits{Pids: 64}},
		{"cpu", cgroup.Limits{CPU: 1}},
	} {
		version, err := TryCgroup(lim.limits)
		if err != nil {
			var ce *cgroup.Error
			if errors.As(err, &ce) {
				err = ce.Err
			}
			parts = append(parts, fmt.Sprintf("--%s unavailable: %v", lim.option, err))
			continue
		}
		via[lim.option] = version
		parts = append(parts, fmt.Sprintf("--%s through cgroup %s", lim.option, version))
	}
	item := ProbeItem{OK: len(via) == 3, Detail: strings.Join(parts, "; ")}
	if len(via) == 0 {
		via = nil
	}
	return item, via
}

// startProbeWait starts the process the probe places in a cgroup, born in
// cgroup v2 directory fd if born.
func startProbeWait(fd int, born bool) (*exec.Cmd, io.WriteCloser, error) {
	cmd := &exec.Cmd{Path: reexec.Self, Args: []string{launch.ProbeWaitStage}, Env: []string{}, SysProcAttr: &syscall.SysProcAttr{}}
	cmd.SysProcAttr.CgroupFD, cmd.SysProcAttr.UseCgroupFD = fd, born
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return cmd, nil, err
	}
	if err := cmd.Start(); err != nil {
		stdin.Close()
		return cmd, nil, err
	}
	return cmd, stdin, nil
}

// TryCgroup makes a sandbox's cgroup with limits l (v2, else v1), puts a
// waiting process in it the way the first process is put there, and
// removes it; it returns "v1" or "v2". A cgroup that cannot be made, or
// entered, is the cgroup package's error.
func TryCgroup(l cgroup.Limits) (string, error) {
	cg, err := cgroup.New(l)
	if err != nil {
		return "", err
	}
	defer cg.Remove()
	fd, born := cg.CloneFD()
	cmd, stdin, err := startProbeWait(fd, born)
	moved := cgroup.Clone3Refused(cmd.SysProcAttr, err)
	if moved {
		// As cgroup.ForkExec does for the init: started outside, moved in
		// before it is let go.
		cmd, stdin, err = startProbeWait(fd, false)
	}
	if err != nil {
		return "", fmt.Errorf("start a process in %s: %w", cg.Dir(), err)
	}
	version := cg.Version()
	if moved {
		err = cgroup.MoveFD(fd, cmd.Process.Pid)
	} else {
		err = cg.Enter(cmd.Process.Pid)
	}
	stdin.Close()
	if werr := cmd.Wait(); err == nil && werr != nil {
		err = fmt.Errorf("the process in the cgroup: %w", werr)
	}
	if err != nil {
		return "", err
	}
	return version, nil
}
