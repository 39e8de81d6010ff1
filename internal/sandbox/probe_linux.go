package sandbox

import (
	"fmt"
	"io"
	"os/exec"
	"syscall"

	"github.com/nsrun/nsrun/cgroup"
	"github.com/nsrun/nsrun/internal/launch"
	"github.com/nsrun/nsrun/reexec"
)

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
