package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"runtime"
	"time"

	"github.com/nsrun/nsrun/internal/launch"
	"github.com/nsrun/nsrun/internal/rawinit"
)

// The runtime-free init (internal/rawinit, issue 27) is the default for
// every spec it supports; NSRUN_INIT=go chooses the Go init, the
// reference, for a caller the raw init breaks. The raw init is compiled
// from the finished spec, so Fork leaves the start to Send; a spec it does
// not support gets the Go init then, as -v says.
const initVar = "NSRUN_INIT"

// initChoice says whether NSRUN_INIT, set to value, asks for the raw init
// (unset: the default), or why value is refused: a misspelt name must not
// quietly give the init it did not name.
func initChoice(value string) (raw bool, err error) {
	switch value {
	case "", "raw":
		return true, nil
	case "go":
		return false, nil
	}
	return false, &Error{Code: launch.ExitSetup,
		Msg: fmt.Sprintf("%s=%s: not an init (raw, the default, or go, the Go init)", initVar, value)}
}

// switches are the environment's switches that change how a sandbox is
// made, not what it is (for the tests, and a caller a path breaks): 0 or
// unset is off, 1 on.
var switches = []string{
	"NSRUN_FORK_HELPER",   // the Go init forked through the fork helper
	"NSRUN_RAW_FORK",      // the raw init's payload forked, not vforked
	"NSRUN_FORCE_REMOUNT", // mount attributes set by remounting
}

// checkSettings refuses an NSRUN_INIT that names no init, or a switch
// that is neither 0 nor 1, before anything of the sandbox is made,
// whatever the sandbox (a Landlock-only one has no init, and the setting
// is still wrong): a misspelt value must not quietly mean off.
func checkSettings() error {
	if _, err := initChoice(os.Getenv(initVar)); err != nil {
		return err
	}
	for _, name := range switches {
		switch v := os.Getenv(name); v {
		case "", "0", "1":
		default:
			return &Error{Code: launch.ExitSetup, Msg: fmt.Sprintf("%s=%s: not 0 or 1", name, v)}
		}
	}
	return nil
}

// rawRequested says whether Fork should leave the init to Send, to start
// the raw one there if the spec allows; checkSettings has refused a bad value.
func (s *Sandbox) rawRequested() bool {
	if s.direct {
		return false
	}
	raw, _ := initChoice(os.Getenv(initVar))
	if !raw {
		s.logf("the Go init: %s=go", initVar)
	}
	return raw
}

// startDeferred starts the init Fork left for the spec, and reports
// whether it is the raw one (which reads no spec).
func (s *Sandbox) startDeferred(spec *launch.Spec) (raw bool, err error) {
	if !s.rawPending {
		return false, nil
	}
	s.rawPending = false
	why := rawinit.Supports(spec)
	if why == nil {
		why = rawinit.HostSupports()
	}
	if why != nil {
		s.logf("the Go init: %v", why)
		return false, s.fork()
	}
	// The raw init is forked with this whole address space, as the Go
	// init is without the fork helper: past the helper's threshold the
	// copy costs more than the second runtime saves; NSRUN_FORK_HELPER=1
	// asks for the helper, which only the Go init has.
	if s.shareMemory && s.noShareWhy == "" {
		s.noShareWhy = rawinit.NoShareWhy(spec)
	}
	if why := useForkHelper(); why != "" && !(s.shareMemory && s.noShareWhy == "" && rawinit.CanShareMemory) {
		s.logf("the Go init: %s", why)
		return false, s.fork()
	}
	l := s.launch
	started := make(chan error, 1)
	go s.startRaw(spec, started)
	err = <-started
	s.forked = err == nil
	runtime.KeepAlive(s.stdio)
	closeFiles(l.specR, l.statusW, l.netChild)
	s.stdio.closeChildEnds()
	s.term.started()
	if err != nil {
		// Worded as the Go init's failed start is: the refused clone's
		// errno alone.
		var clone *os.SyscallError
		if errors.As(err, &clone) && clone.Syscall == "clone3" {
			err = clone.Err
		}
		return true, s.startFailed(err)
	}
	shared := ""
	switch {
	case s.rawInit.SharesMemory:
		shared = ", sharing this process's memory"
	case s.shareMemory && s.noShareWhy != "":
		shared = ", a copy of this process's memory (" + s.noShareWhy + ")"
	case s.shareMemory:
		shared = ", a copy of this process's memory (shared memory is not supported here)"
	}
	s.logf("the raw init started at %.2f ms%s (the default; %s=go gives the Go init)", ms(time.Since(s.started)), shared, initVar)
	s.status = bufio.NewReader(s.rawInit.Status(s.statusFile))
	return true, nil
}

// startRaw starts the raw init from a locked thread and keeps that thread
// until the sandbox is gone, as forkAndHold does.
func (s *Sandbox) startRaw(spec *launch.Spec, started chan<- error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	sys := s.launch.attr.Sys
	init, err := rawinit.Start(spec, &rawinit.Attr{Files: s.launch.attr.Files, Cloneflags: sys.Cloneflags, Setsid: sys.Setsid,
		UseCgroupFD: sys.UseCgroupFD, CgroupFD: sys.CgroupFD, UIDs: sys.UidMappings, GIDs: sys.GidMappings, PidFD: &s.pidfd,
		ShareMemory: s.shareMemory && s.noShareWhy == "",
		// The raw init reads no spec: with cgroup v1 it joins its
		// cgroups before it is let go (Send's Enter is then a repeat).
		BeforeRelease: func(pid int) error {
			if s.cgroup == nil {
				return nil
			}
			return s.cgroup.Enter(pid)
		}})
	if err == nil {
		s.pid, s.waitPid, s.rawInit = init.Pid, init.Pid, init
	}
	started <- err
	if err != nil {
		return
	}
	<-s.release
}

// dropDeferred closes what only a deferred init needed, when the sandbox
// is aborted before it started.
func (s *Sandbox) dropDeferred() {
	if s.rawPending {
		s.rawPending = false
		closeFiles(s.launch.specR, s.launch.statusW, s.launch.netChild)
		s.stdio.closeChildEnds()
	}
}
