//go:build linux && amd64

package nsrun

import (
	_ "embed"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/internal/launch"
	"github.com/nsrun/nsrun/internal/plan"
	"github.com/nsrun/nsrun/ptrace"
	"github.com/nsrun/nsrun/seccomp"
)

// The traced filters against a real container profile, embedded from the
// integration suite's testdata (internal/plan's own tests cannot embed
// it); internal/plan tests the rest of plan.TracedFilters.

func compiled(t *testing.T, p seccomp.Profile) seccomp.Program {
	t.Helper()
	c, err := seccomp.Compile(p)
	if err != nil {
		t.Fatal(err)
	}
	return c.Program
}

// seccompAnswer is the kernel's answer to c from stacked programs.
func seccompAnswer(progs []seccomp.Program, c ptrace.Syscall) seccomp.Action {
	return seccomp.ActionOf(seccomp.Decide(progs, seccomp.Data{NR: int32(c.NR), Arch: c.Arch, Args: c.Args}))
}

//go:embed integration/testdata/containers-seccomp.json
var podmanProfile []byte

// TestTracedFiltersAgree: for every call number and a spread of
// arguments, the traced stack stops the payload (a trace, for the tracer
// to refuse) exactly where the untraced one refuses with an errno or a
// trace, hands the supervisor exactly what it handed it, and answers
// everything else (a kill, a trap, an allowed call, which it may stop to
// observe) as before.
func TestTracedFiltersAgree(t *testing.T) {
	// Embedded: the test binary also runs away from the sources (as the
	// unprivileged user in scripts/test.sh).
	oci, err := seccomp.ParseOCI(podmanProfile, "containers", plan.SeccompHost())
	if err != nil {
		t.Fatal(err)
	}
	guard := compiled(t, seccomp.Guard(seccomp.GuardOptions{NoNetwork: true}))
	ports := compiled(t, seccomp.Guard(seccomp.GuardOptions{Ports: &seccomp.PortGuard{Connect: true, Bind: true}}))
	ll := compiled(t, seccomp.LandlockOnly(seccomp.LandlockOnlyOptions{Connect: true, Entries: true, Listen: true, Unix: seccomp.UnixNoDatagram}))
	specs := map[string]launch.Spec{
		"full, default":       {Seccomp: []seccomp.Program{guard, compiled(t, seccomp.Default(seccomp.Options{}))}},
		"full, ports, podman": {Seccomp: []seccomp.Program{ports, compiled(t, oci)}},
		"landlock, podman":    {Seccomp: []seccomp.Program{guard, compiled(t, oci)}, Supervisor: &launch.SupervisorSpec{Filter: ll}},
	}
	const cwd = 1<<64 - 100 // AT_FDCWD
	args := [][6]uint64{{}, {1, 2, 3}, {unix.AF_UNIX, unix.SOCK_DGRAM}, {unix.AF_INET, unix.SOCK_STREAM}, {cwd, 0, unix.S_ISUID | 0o755},
		{0, unix.S_ISGID | 0o644}, {3, 0x40086602, 1}, {cwd, 0, unix.O_WRONLY | unix.O_CREAT}, {1 << 40, 1 << 33, 1 << 63}}
	for name, spec := range specs {
		var loaded []seccomp.Program
		untraced, err := plan.TracedFilters(&spec)
		if err != nil {
			t.Fatal(err)
		}
		if spec.Supervisor != nil {
			loaded = append(loaded, spec.Supervisor.Filter)
		}
		loaded = append(loaded, spec.Seccomp...)
		for nr := uint64(0); nr < 600; nr++ {
			for _, a := range args {
				c := ptrace.Syscall{Arch: unix.AUDIT_ARCH_X86_64, NR: nr, Args: a}
				before, got := seccompAnswer(untraced, c), seccompAnswer(loaded, c)
				ok := got == before
				switch before.Kind {
				case seccomp.ActErrno, seccomp.ActTrace:
					ok = got.Kind == seccomp.ActTrace
				case seccomp.ActAllow:
					ok = ok || got == seccomp.Action{Kind: seccomp.ActTrace, Errno: ptrace.ObserveData}
				}
				if !ok {
					t.Fatalf("%s: call %d %v: untraced %+v, traced %+v", name, nr, a, before, got)
				}
			}
		}
	}
}
