package nsrun

import (
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"syscall"

	"github.com/nsrun/nsrun/cgroup"
	"github.com/nsrun/nsrun/internal/launch"
	"github.com/nsrun/nsrun/reexec"
)

// probeLimits tries each cgroup limit as a sandbox would get it: it makes
// the cgroup (v2, else v1), puts a process in it the way the init is put
// there, and removes it.
func probeLimits() (ProbeItem, map[string]string) {
	via := map[string]string{}
	var parts []string
	for _, lim := range []struct {
		option string
		policy Policy
	}{
		{"memory", Policy{Memory: 64 << 20}},
		{"pids", Policy{Pids: 64}},
		{"cpu", Policy{CPU: 1}},
	} {
		version, err := tryCgroup(&lim.policy)
		if err != nil {
			var le *LimitError
			if errors.As(err, &le) {
				err = le.Err
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

// tryCgroup makes p's cgroup, moves a waiting process into it and removes
// it, returning "v1" or "v2".
func tryCgroup(p *Policy) (string, error) {
	cg, err := newCgroup(p)
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
		err = limitError(cgroup.MoveFD(fd, cmd.Process.Pid))
	} else {
		err = limitError(cg.Enter(cmd.Process.Pid))
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
