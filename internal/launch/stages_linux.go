package launch

import "github.com/nsrun/nsrun/reexec"

// Every stage is registered here, when the package is initialized, so that
// any program that can start a sandbox (it imports this package through
// the library) can also run as each of its stages; reexec.Register panics
// on a name registered twice. The Landlock-only stage is registered by
// package rawinit, which gives it the runtime-free child.
func init() {
	reexec.Register(InitStage, RunInit)
	reexec.Register(LandlockChildStage, RunLandlockChild)
	reexec.Register(ForkStage, RunForkHelper)
	reexec.Register(ProbeStage, RunProbeStage)
	reexec.Register(ProbeWaitStage, RunProbeWaitStage)
}
