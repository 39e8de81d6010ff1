//go:build linux && amd64

package plan

import (
	"os"
	"slices"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/internal/launch"
	"github.com/nsrun/nsrun/ptrace"
	"github.com/nsrun/nsrun/seccomp"
)

func compiled(t *testing.T, p seccomp.Profile) seccomp.Program {
	t.Helper()
	c, err := seccomp.Compile(p)
	if err != nil {
		t.Fatal(err)
	}
	return c.Program
}

func syscallOf(nr uint64, args ...uint64) ptrace.Syscall {
	c := ptrace.Syscall{Arch: unix.AUDIT_ARCH_X86_64, NR: nr}
	copy(c.Args[:], args)
	return c
}

// tracedCall is a call and the errno a sandbox refuses it with (0: none).
type tracedCall struct {
	name  string
	call  ptrace.Syscall
	errno unix.Errno
}

// seccompAnswer is the kernel's answer to c from stacked programs.
func seccompAnswer(progs []seccomp.Program, c ptrace.Syscall) seccomp.Action {
	return seccomp.ActionOf(seccomp.Decide(progs, seccomp.Data{NR: int32(c.NR), Arch: c.Arch, Args: c.Args}))
}

// TestTracedFilters: what a traced sandbox loads answers every call the
// untraced filters refuse with a trace (never a trap, which would signal
// the payload, and never a notification, which would hand it to the
// supervisor), answers the rest as before, and keeps the payload from a
// listener of its own; the tracer is given the untraced filters.
func TestTracedFilters(t *testing.T) {
	guard := compiled(t, seccomp.Guard(seccomp.GuardOptions{}))
	listenGuard := compiled(t, seccomp.Guard(seccomp.GuardOptions{Ports: &seccomp.PortGuard{Bind: true}}))
	def := compiled(t, seccomp.Default(seccomp.Options{}))
	ll := compiled(t, seccomp.LandlockOnly(seccomp.LandlockOnlyOptions{Entries: true}))
	noListen := compiled(t, seccomp.Profile{Name: "no-listen", DefaultAction: seccomp.Action{Kind: seccomp.ActAllow},
		Rules: []seccomp.Rule{{Names: []string{"listen"}, Action: seccomp.Action{Kind: seccomp.ActErrno, Errno: uint16(unix.EACCES)}}}})
	setuidChmod := syscallOf(unix.SYS_CHMOD, 0, unix.S_ISUID|0o755)
	for _, tc := range []struct {
		name   string
		spec   launch.Spec
		hold   bool
		listen unix.Errno // what listen() gets: 0 when it is allowed
	}{
		{"full", launch.Spec{Seccomp: []seccomp.Program{guard, def}}, true, 0},
		{"full, listen() checked", launch.Spec{Seccomp: []seccomp.Program{listenGuard, def}}, false, 0},
		{"full, listen() checked and refused", launch.Spec{Seccomp: []seccomp.Program{listenGuard, noListen}}, false, unix.EACCES},
		{"landlock only", launch.Spec{Seccomp: []seccomp.Program{guard, def}, Supervisor: &launch.SupervisorSpec{Filter: ll}}, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := tc.spec
			if spec.Supervisor != nil {
				sup := *spec.Supervisor
				spec.Supervisor = &sup
			}
			spec.Seccomp = slices.Clone(spec.Seccomp)
			untraced, err := TracedFilters(&spec)
			if err != nil {
				t.Fatal(err)
			}
			var want, loaded []seccomp.Program
			if tc.spec.Supervisor != nil {
				want = append(want, tc.spec.Supervisor.Filter)
				loaded = append(loaded, spec.Supervisor.Filter)
			}
			want = append(want, tc.spec.Seccomp...)
			loaded = append(loaded, spec.Seccomp...)
			if len(untraced) != len(want) {
				t.Fatalf("untraced: %d programs, want %d", len(untraced), len(want))
			}
			for i := range want {
				if !slices.Equal(untraced[i], want[i]) {
					t.Errorf("untraced program %d changed", i)
				}
			}
			if spec.HoldListener != tc.hold {
				t.Errorf("HoldListener %v, want %v", spec.HoldListener, tc.hold)
			}
			observe, _ := traceProgram()
			if !slices.Equal(spec.Seccomp[0], observe) {
				t.Error("the observing program is not loaded first")
			}
			refused := RefusedBy(untraced)
			calls := []tracedCall{
				{"setuid chmod", setuidChmod, unix.EPERM},
				{"getpid", syscallOf(unix.SYS_GETPID), 0},
				{"chmod", syscallOf(unix.SYS_CHMOD, 0, 0o755), 0},
				{"listen", syscallOf(unix.SYS_LISTEN, 3, 1), tc.listen},
			}
			if tc.listen == 0 { // the default profile
				calls = append(calls, []tracedCall{
					{"keyctl", syscallOf(unix.SYS_KEYCTL), unix.EPERM},
					{"clone3", syscallOf(unix.SYS_CLONE3), unix.ENOSYS},
					{"socket AF_ALG", syscallOf(unix.SYS_SOCKET, unix.AF_ALG, unix.SOCK_SEQPACKET), unix.EAFNOSUPPORT},
				}...)
			}
			for _, c := range calls {
				got, before := seccompAnswer(loaded, c.call), seccompAnswer(untraced, c.call)
				if c.errno != 0 {
					if got.Kind != seccomp.ActTrace || unix.Errno(got.Errno) != c.errno {
						t.Errorf("%s: loaded %+v, want a trace of %v", c.name, got, c.errno)
					}
					if errno, ok := refused(c.call); !ok || errno != c.errno {
						t.Errorf("%s: the tracer refuses it %v with %v, want %v", c.name, ok, errno, c.errno)
					}
					continue
				}
				// Allowed: as before, or stopped to be observed.
				observed := got == seccomp.Action{Kind: seccomp.ActTrace, Errno: ptrace.ObserveData}
				if got.Kind != before.Kind && !(observed && before.Kind == seccomp.ActAllow) {
					t.Errorf("%s: loaded %+v, untraced %+v", c.name, got, before)
				}
				if _, ok := refused(c.call); ok && before.Kind == seccomp.ActAllow {
					t.Errorf("%s: the tracer refuses what is allowed", c.name)
				}
			}
		})
	}
}

// TestRefusedBy: the tracer refuses what the untraced filters answer with
// an errno, and a trace with ENOSYS (no tracer answers it untraced).
func TestRefusedBy(t *testing.T) {
	prof := seccomp.Profile{Name: "p", DefaultAction: seccomp.Action{Kind: seccomp.ActAllow}, Rules: []seccomp.Rule{
		{Names: []string{"getppid"}, Action: seccomp.Action{Kind: seccomp.ActTrace, Errno: 7}},
		{Names: []string{"getuid"}, Action: seccomp.Action{Kind: seccomp.ActLog}},
		{Names: []string{"getgid"}, Action: seccomp.Action{Kind: seccomp.ActErrno, Errno: uint16(unix.EACCES)}},
	}}
	refused := RefusedBy([]seccomp.Program{compiled(t, seccomp.Default(seccomp.Options{})), compiled(t, prof)})
	for _, c := range []struct {
		call  ptrace.Syscall
		errno unix.Errno
		ok    bool
	}{
		{syscallOf(unix.SYS_GETPPID), unix.ENOSYS, true},
		{syscallOf(unix.SYS_GETUID), 0, false},
		{syscallOf(unix.SYS_GETGID), unix.EACCES, true},
		{syscallOf(unix.SYS_KEYCTL), unix.EPERM, true},
		{syscallOf(unix.SYS_GETPID), 0, false},
	} {
		if errno, ok := refused(c.call); errno != c.errno || ok != c.ok {
			t.Errorf("call %d: %v %v, want %v %v", c.call.NR, errno, ok, c.errno, c.ok)
		}
	}
}

// TestTracedFiltersAgree: for every call number and a spread of
// arguments, the traced stack stops the payload (a trace, for the tracer
// to refuse) exactly where the untraced one refuses with an errno or a
// trace, hands the supervisor exactly what it handed it, and answers
// everything else (a kill, a trap, an allowed call, which it may stop to
// observe) as before.
func TestTracedFiltersAgree(t *testing.T) {
	// podman's and CRI-O's profile, from the integration suite's
	// testdata (as package seccomp's tests read it).
	podmanProfile, err := os.ReadFile("../../integration/testdata/containers-seccomp.json")
	if err != nil {
		t.Fatal(err)
	}
	oci, err := seccomp.ParseOCI(podmanProfile, "containers", SeccompHost())
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
		untraced, err := TracedFilters(&spec)
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
