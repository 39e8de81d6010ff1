// Package launch is the inside of a Linux sandbox's start: the stages nsrun
// re-executes itself as, and the typed spec and status protocol between
// them and the parent. It does not import the nsrun library: the library
// plans a launch into a Spec, and these stages carry it out.
//
// The stages:
//   - RunInit (InitStage) is the init in fresh namespaces: private
//     propagation, the mount plan (package mounts), pivot_root, lo and its
//     addresses, the sandbox's pty, then the lockdown and the payload,
//     which it supervises as pid 1.
//   - RunLandlockStage (LandlockStage) supervises a Landlock-only sandbox
//     from outside the payload's Landlock domain; the child that
//     restricts itself and becomes the payload is package rawinit's,
//     cloned without a Go runtime (RawChildren), where it supports the
//     spec, else RunLandlockChild (LandlockChildStage), the reference
//     (StageGoChild: NSRUN_INIT=go). rawinit registers the stage.
//   - RunForkHelper (ForkStage) forks the init for a large program, waits
//     for it and ends as it ended.
//   - RunProbeStage (ProbeStage) and RunProbeWaitStage (ProbeWaitStage)
//     are the probe's: a procfs and a sysfs mounted in fresh namespaces,
//     and a process placed in a cgroup.
//
// The package registers every other stage with reexec when it is
// initialized.
//
// The lockdown order, on the thread that executes the payload: rlimits,
// Landlock, NO_NEW_PRIVS and the capability sets, the seccomp filters
// (a listener handed over first), exec. A stage that fails sends a MsgError
// with the status (ExitSetup, ExitNotExecutable, ExitNotFound) and the
// errno at its root, and runs nothing.
//
// The spec and every message travel over inherited pipes (SpecFD,
// StatusFD), never in argv or the environment.
package launch
