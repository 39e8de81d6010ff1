package sandbox

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"slices"
	"syscall"

	"github.com/nsrun/nsrun/cgroup"
	"github.com/nsrun/nsrun/internal/errs"
	"github.com/nsrun/nsrun/internal/launch"
	"github.com/nsrun/nsrun/ns"
	"github.com/nsrun/nsrun/reexec"
)

// startup is what the first process of the sandbox (the init, or the
// Landlock-only stage) is started with.
type startup struct {
	stage        string
	attr         *syscall.ProcAttr
	specR, specW *os.File // the spec's pipe; specW stays the lifeline
	statusW      *os.File // the status pipe's child end
	netChild     *os.File // the network socket's child end, if any
	extraAt      []int    // where the ExtraFiles are in the child
	trailing     int      // how many of attr.Files, last, are ExtraFiles and their padding
}

// newLaunch makes the pipes, the standard streams and the descriptors of
// the first process, and decides how it starts: in new namespaces, or as
// the Landlock-only stage.
func (s *Sandbox) newLaunch(a *Attr) (*startup, error) {
	l := &startup{stage: launch.InitStage}
	specR, specW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("pipe: %w", err)
	}
	statusR, statusW, err := os.Pipe()
	if err != nil {
		closeFiles(specR, specW)
		return nil, fmt.Errorf("pipe: %w", err)
	}
	// The caller's terminal never enters the sandbox: the streams that
	// are it become the sandbox's own pty.
	s.stdio, err = newStdio(s.term.streams(a.Stdin, a.Stdout, a.Stderr))
	if err != nil {
		closeFiles(specR, specW, statusR, statusW)
		return nil, fmt.Errorf("standard streams: %w", err)
	}
	s.term.giveSlave(s.stdio)
	l.specR, l.specW, l.statusW = specR, specW, statusW
	s.lifeline, s.statusFile, s.status = specW, statusR, bufio.NewReader(statusR)
	l.attr = &syscall.ProcAttr{
		Env: []string{},
		Files: []uintptr{s.stdio.fds[0].Fd(), s.stdio.fds[1].Fd(), s.stdio.fds[2].Fd(),
			specR.Fd(), statusW.Fd()},
		Sys: &syscall.SysProcAttr{
			// A session of its own: no controlling terminal, or the
			// sandbox's own pty, never the caller's.
			Setsid: true,
			PidFD:  &s.pidfd,
		},
	}
	attr := l.attr
	if s.term != nil && s.term.peer != nil {
		attr.Files = append(attr.Files, s.term.peer.Fd())
	}
	if s.cgroup != nil {
		// Born in its cgroup: nothing runs outside the limits, not even
		// for a moment.
		attr.Sys.CgroupFD, attr.Sys.UseCgroupFD = s.cgroup.CloneFD()
	}
	if !s.direct && a.Network {
		if s.netSock, l.netChild, err = socketPair(); err != nil {
			closeFiles(specR, specW, statusR, statusW)
			s.stdio.closeChildEnds()
			s.stdio.closeParentEnds()
			return nil, err
		}
		for len(attr.Files) < launch.NetSockFD {
			attr.Files = append(attr.Files, ^uintptr(0)) // no terminal at launch.TTYSockFD
		}
		attr.Files = append(attr.Files, l.netChild.Fd()) // launch.NetSockFD
	}
	// Last, after every descriptor of a fixed number, where the fork
	// helper places them too.
	attr.Files, l.extraAt, l.trailing = extraFilePlaces(attr.Files, a.ExtraFiles, launch.NetSockFD+1)
	if s.direct {
		// The stage is a session leader with the pty as its terminal; it
		// sets a parent-death signal of its own, which it catches to end
		// the sandbox first.
		l.stage = launch.LandlockStage
		if a.Traced {
			s.stageArgs = append(s.stageArgs, launch.StageTraced)
		}
		if s.cgroup != nil && s.cgroup.Version() == "v1" {
			// Moved in after it started (Send).
			s.stageArgs = append(s.stageArgs, launch.StageMovedIn)
		}
		if s.term != nil {
			s.term.stageAttr(attr.Sys)
		}
	} else {
		uids, gids := ns.Maps(a.UID, a.HostUID, a.GID, a.HostGID)
		attr.Sys.Cloneflags = ns.CloneFlags(a.HostNet)
		attr.Sys.UidMappings, attr.Sys.GidMappings = uids, gids
		attr.Sys.AmbientCaps = ns.SetupCaps
		if a.Overlay {
			attr.Sys.AmbientCaps = ns.OverlayCaps
		}
		attr.Sys.AmbientCaps = withCaps(attr.Sys.AmbientCaps, a.KeepCaps)
	}
	return l, nil
}

// Fork starts the sandbox's first process: the init in new namespaces
// (through the fork helper where this process is large), or the
// Landlock-only stage. It waits for its spec (Send); forking before
// planning is faster than planning during the fork (a parent busy
// meanwhile slows the fork with copy-on-write faults, a locked thread
// waiting for the scheduler). Whether or not it started, what only the
// child needed is closed; on an error nothing of it runs, and Abort
// releases the rest. A failed start of the init in new namespaces is
// explained by what the host allows (ns.Explain).
func (s *Sandbox) Fork() error {
	if s.rawRequested() {
		s.rawPending = true // started by Send, from the spec
		return nil
	}
	return s.fork()
}

func (s *Sandbox) fork() error {
	l := s.launch
	var err error
	why := ""
	if !s.direct {
		why = useForkHelper()
	}
	if why != "" {
		s.logf("forking the init through the fork helper (%s)", why)
		err = s.startThroughHelper(l.attr, l.trailing)
	} else {
		err = s.start(l.stage, l.attr)
	}
	s.forked = err == nil
	runtime.KeepAlive(s.stdio)
	closeFiles(l.specR, l.statusW, l.netChild)
	s.stdio.closeChildEnds()
	s.term.started()
	if err != nil {
		return s.startFailed(err)
	}
	return nil
}

// startFailed words a first process that could not be started, the same
// for both inits: the refused clone explained, and where Landlock-only
// runs instead.
func (s *Sandbox) startFailed(err error) error {
	if s.direct {
		return &Error{Code: launch.ExitSetup, Op: "start the Landlock-only stage", Err: err}
	}
	return &Error{Code: launch.ExitSetup, Op: "create namespaces and start the init",
		Err: errs.New("%w; where user namespaces are not allowed, %s runs without them", ns.Explain(err, ns.ReadSettings(), s.hostUID), errs.IsolationLandlock)}
}

// start forks the init (or the Landlock-only stage) from this process.
func (s *Sandbox) start(stage string, attr *syscall.ProcAttr) error {
	started := make(chan error, 1)
	go s.forkAndHold(stage, attr, started)
	return <-started
}

// forkAndHold starts the init from a locked thread and keeps that thread
// alive until the sandbox is gone: the init's parent-death signal follows
// the thread that forked it, not the process.
func (s *Sandbox) forkAndHold(stage string, attr *syscall.ProcAttr, started chan<- error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var movedIn []string
	if stage == launch.LandlockStage {
		movedIn = []string{launch.StageMovedIn}
	}
	pid, err := cgroup.ForkExec(reexec.Self, append([]string{stage}, s.stageArgs...), attr, movedIn...)
	s.pid, s.waitPid = pid, pid
	started <- err
	if err != nil {
		return
	}
	<-s.release
}

// extraFilePlaces appends the ExtraFiles to the descriptors the init (or
// the Landlock-only stage) is started with, from first on, and returns
// where each lands (-1 for a nil one) and how many entries it appended
// from first on.
//
// Every number below 3+len(extra), the payload's highest, is taken in the
// child, by a copy of its stdin where nothing else is: the Go runtime's
// own descriptors (its poller, the cgroup files it reads) then lie above
// every number the payload's descriptors take, and a payload executed in
// the child's place (Spec.AsPid1) can be given them there without
// closing one of the runtime's. A place before first is taken only
// where it was left empty.
func extraFilePlaces(files []uintptr, extra []*os.File, first int) ([]uintptr, []int, int) {
	if len(extra) == 0 {
		return files, nil, 0
	}
	filler := files[0]
	for i, fd := range files {
		if fd == ^uintptr(0) {
			files[i] = filler
		}
	}
	for len(files) < first {
		files = append(files, filler)
	}
	at := make([]int, len(extra))
	for i, f := range extra {
		if f == nil {
			at[i] = -1
			continue
		}
		at[i] = len(files)
		files = append(files, f.Fd())
	}
	for len(files) < 3+len(extra) {
		files = append(files, filler)
	}
	return files, at, len(files) - first
}

func closeFiles(fs ...*os.File) {
	for _, f := range fs {
		f.Close()
	}
}

// withCaps is caps and those of more it lacks, in a new slice.
func withCaps(caps, more []uintptr) []uintptr {
	out := append([]uintptr{}, caps...)
	for _, c := range more {
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}
