package seccomp

import (
	"strings"
	"testing"
)

func mustCompile(t *testing.T, p Profile) Program {
	t.Helper()
	c, err := compileFor(p, "amd64")
	if err != nil {
		t.Fatal(err)
	}
	return c.Program
}

// amd64 call numbers the tests use.
const (
	nrGetpid = 39
	nrChmod  = 90
	nrKeyctl = 250
	nrListen = 50
)

func call(nr uint32, args ...uint64) Data {
	d := Data{NR: int32(nr), Arch: auditArchX86_64}
	copy(d.Args[:], args)
	return d
}

func rets(n ...uint32) Program {
	var p Program
	for _, k := range n {
		p = append(p, stmt(bpfRetK, k))
	}
	return p
}

// Decide answers as the kernel does for stacked filters: the strictest
// action, and of equal actions the newest filter's value.
func TestDecide(t *testing.T) {
	for _, tc := range []struct {
		name    string
		filters []Program
		want    uint32
	}{
		{"none", nil, retAllow},
		{"errno beats notify and trace", []Program{rets(retErrno | 1), rets(retUserNotif), rets(retTrace | 5)}, retErrno | 1},
		{"newest errno", []Program{rets(retErrno | 1), rets(retErrno | 13)}, retErrno | 13},
		{"newest trace", []Program{rets(retTrace | 13), rets(retTrace | 1)}, retTrace | 1},
		{"kill process beats all", []Program{rets(retKillProcess), rets(retKillThread), rets(retTrap)}, retKillProcess},
		{"kill thread beats trap", []Program{rets(retTrap | 3), rets(retKillThread)}, retKillThread},
		{"notify beats trace and log", []Program{rets(retUserNotif), rets(retTrace), rets(retLog)}, retUserNotif},
		{"log beats allow", []Program{rets(retLog), rets(retAllow)}, retLog},
	} {
		if got := Decide(tc.filters, call(nrGetpid)); got != tc.want {
			t.Errorf("%s: %#x, want %#x", tc.name, got, tc.want)
		}
	}
}

func TestActionOf(t *testing.T) {
	for _, tc := range []struct {
		ret  uint32
		want Action
	}{
		{retAllow, Action{Kind: ActAllow}},
		{retErrno | 13, Action{Kind: ActErrno, Errno: 13}},
		{retErrno | 0xffff, Action{Kind: ActErrno, Errno: 4095}},
		{retTrace | 7, Action{Kind: ActTrace, Errno: 7}},
		{retTrap | 7, Action{Kind: ActTrap, Errno: 7}},
		{retUserNotif, Action{Kind: ActNotify}},
		{retLog, Action{Kind: ActLog}},
		{retKillThread, Action{Kind: ActKillThread}},
		{retKillProcess, Action{Kind: ActKillProcess}},
		{0x12340000, Action{Kind: ActKillProcess}},
	} {
		if got := ActionOf(tc.ret); got != tc.want {
			t.Errorf("%#x: %+v, want %+v", tc.ret, got, tc.want)
		}
	}
}

// Check refuses what the kernel would, and what Run cannot run.
func TestCheck(t *testing.T) {
	ok := []Program{
		rets(retAllow),
		{stmt(bpfLdWAbs, offNR), jump(bpfJeqK, 1, 0, 1), stmt(bpfRetK, retErrno|1), stmt(bpfRetK, retAllow)},
		{stmt(bpfLdImm, 3), stmt(classALU|aluDiv, 2), stmt(bpfSt, 15), stmt(bpfLdxMem, 15), stmt(bpfTxa, 0), stmt(bpfRetA, 0)},
	}
	for i, p := range ok {
		if err := p.Check(); err != nil {
			t.Errorf("program %d: %v", i, err)
		}
	}
	for _, tc := range []struct {
		name string
		p    Program
		want string
	}{
		{"empty", Program{}, "0 instructions"},
		{"no return", Program{stmt(bpfLdImm, 0)}, "does not end with a return"},
		{"load past the data", Program{stmt(bpfLdWAbs, 64), stmt(bpfRetK, 0)}, "outside"},
		{"unaligned load", Program{stmt(bpfLdWAbs, 2), stmt(bpfRetK, 0)}, "outside"},
		{"jump past the end", Program{jump(bpfJeqK, 0, 1, 0), stmt(bpfRetK, 0)}, "jump out"},
		{"ja past the end", Program{stmt(bpfJa, 1), stmt(bpfRetK, 0)}, "jump out"},
		{"memory slot", Program{stmt(bpfSt, 16), stmt(bpfRetK, 0)}, "slot"},
		{"division by zero", Program{stmt(classALU|aluDiv, 0), stmt(bpfRetK, 0)}, "division"},
		{"modulo", Program{stmt(classALU|0x90, 3), stmt(bpfRetK, 0)}, "not allowed"},
		{"packet load", Program{stmt(0x28, 0), stmt(bpfRetK, 0)}, "not allowed"},
	} {
		err := tc.p.Check()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

// Traced makes errnos and traces traces carrying the errno, and leaves
// every other answer as it was.
func TestTraced(t *testing.T) {
	p := rets(retErrno|13, retErrno|0xffff, retTrace|0x4e53, retTrap|1, retKillProcess, retKillThread, retUserNotif, retLog, retAllow)
	want := rets(retTrace|13, retTrace|4095, retTrace|errENOSYS, retTrap|1, retKillProcess, retKillThread, retUserNotif, retLog, retAllow)
	got, err := Traced(p)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("return %d: %#x, want %#x", i, got[i].K, want[i].K)
		}
	}
	if p[0].K != retErrno|13 {
		t.Error("Traced changed the program it was given")
	}
	if _, err := Traced(Program{stmt(bpfRetA, 0)}); err == nil {
		t.Error("a computed return was made traced")
	}
}

// Ahead: the refusals of the programs ahead win over the notifying
// program's answers, as an errno wins over a notification in the kernel;
// what they allow is the notifying program's to answer.
func TestAhead(t *testing.T) {
	guard := mustCompile(t, Guard(GuardOptions{}))
	def := mustCompile(t, Default(Options{}))
	ll := mustCompile(t, LandlockOnly(LandlockOnlyOptions{Entries: true}))
	var traced []Program
	for _, p := range []Program{ll, guard, def} {
		tp, err := Traced(p)
		if err != nil {
			t.Fatal(err)
		}
		traced = append(traced, tp)
	}
	ahead, err := Ahead(traced[0], traced[2], traced[1])
	if err != nil {
		t.Fatal(err)
	}
	if err := ahead.Check(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		d    Data
		want uint32
	}{
		{"chmod u+s: the guard's refusal, not the supervisor", call(nrChmod, 0, sISUID|0o755), retTrace | errEPERM},
		{"chmod: the supervisor", call(nrChmod, 0, 0o755), retUserNotif},
		{"keyctl: the profile's refusal", call(nrKeyctl), retTrace | errEPERM},
		{"getpid: allowed", call(nrGetpid), retAllow},
		{"another architecture: killed", Data{NR: nrGetpid, Arch: 0x40000003}, retKillProcess},
	} {
		if got := ahead.Run(tc.d); got != tc.want {
			t.Errorf("%s: %#x, want %#x", tc.name, got, tc.want)
		}
		// Untraced, the stack gives the errno the traced one carries.
		untraced := Decide([]Program{ll, guard, def}, tc.d)
		if tc.want&retActionFull == retTrace && untraced != retErrno|(tc.want&0xffff) {
			t.Errorf("%s: untraced %#x", tc.name, untraced)
		}
	}
	if _, err := Ahead(traced[1], traced[0]); err == nil {
		t.Error("a notifying program was put ahead")
	}
	long := make(Program, maxInstructions)
	for i := range long {
		long[i] = stmt(bpfRetK, retAllow)
	}
	if _, err := Ahead(rets(retAllow), long); err == nil {
		t.Error("a program over the kernel's size was made")
	}
}
