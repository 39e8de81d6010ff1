//go:build linux && amd64 && cgo

package seccomp

import (
	"encoding/json"
	"io"
	"math/rand"
	"os"
	"testing"

	docker "github.com/moby/profiles/seccomp"
	libseccomp "github.com/seccomp/libseccomp-golang"
	"golang.org/x/sys/unix"
)

// libseccomp is the reference: the compiler must decide every native call
// exactly as libseccomp's program for the same profile does. (libseccomp
// stays a test dependency only; nsrun itself links no C.)

var libseccompOps = map[Op]libseccomp.ScmpCompareOp{
	OpNE: libseccomp.CompareNotEqual, OpLT: libseccomp.CompareLess, OpLE: libseccomp.CompareLessOrEqual,
	OpEQ: libseccomp.CompareEqual, OpGE: libseccomp.CompareGreaterEqual, OpGT: libseccomp.CompareGreater,
	OpMaskedEq: libseccomp.CompareMaskedEqual,
}

func libseccompAction(t *testing.T, a Action) libseccomp.ScmpAction {
	switch a.Kind {
	case ActAllow:
		return libseccomp.ActAllow
	case ActErrno:
		return libseccomp.ActErrno.SetReturnCode(int16(a.Errno))
	case ActKillProcess:
		return libseccomp.ActKillProcess
	case ActKillThread:
		return libseccomp.ActKillThread
	case ActTrap:
		return libseccomp.ActTrap
	case ActTrace:
		return libseccomp.ActTrace.SetReturnCode(int16(a.Errno))
	case ActLog:
		return libseccomp.ActLog
	case ActNotify:
		return libseccomp.ActNotify
	}
	t.Fatalf("action %v", a.Kind)
	return 0
}

// compileWithLibseccomp builds p's filter for x86_64 alone with libseccomp.
func compileWithLibseccomp(t *testing.T, p Profile) Program {
	t.Helper()
	f, err := libseccomp.NewFilter(libseccompAction(t, p.DefaultAction))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Release()
	if err := f.SetBadArchAction(libseccomp.ActKillProcess); err != nil {
		t.Fatal(err)
	}
	for _, r := range p.Rules {
		if r.Action == p.DefaultAction {
			continue
		}
		var conds []libseccomp.ScmpCondition
		for _, a := range r.Args {
			values := []uint64{a.Value}
			if a.Op == OpMaskedEq {
				values = append(values, a.ValueTwo)
			}
			c, err := libseccomp.MakeCondition(a.Index, libseccompOps[a.Op], values...)
			if err != nil {
				t.Fatal(err)
			}
			conds = append(conds, c)
		}
		for _, name := range r.Names {
			sc, err := libseccomp.GetSyscallFromName(name)
			if err != nil || sc < 0 {
				continue
			}
			if len(conds) == 0 {
				err = f.AddRule(sc, libseccompAction(t, r.Action))
			} else {
				err = f.AddRuleConditional(sc, libseccompAction(t, r.Action), conds)
			}
			if err != nil {
				t.Fatalf("libseccomp rule for %s: %v", name, err)
			}
		}
	}
	mf, err := os.CreateTemp(t.TempDir(), "bpf")
	if err != nil {
		t.Fatal(err)
	}
	defer mf.Close()
	if err := f.ExportBPF(mf); err != nil {
		t.Fatal(err)
	}
	if _, err := mf.Seek(0, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(mf)
	if err != nil {
		t.Fatal(err)
	}
	prog, err := decodeBPF(b)
	if err != nil {
		t.Fatal(err)
	}
	return prog
}

func TestSyscallTablesMatchLibseccomp(t *testing.T) {
	for _, tc := range []struct {
		table syscallTable
		arch  libseccomp.ScmpArch
	}{{syscallsAMD64, libseccomp.ArchAMD64}, {syscallsARM64, libseccomp.ArchARM64}} {
		for _, e := range tc.table {
			sc, err := libseccomp.GetSyscallFromNameByArch(e.name, tc.arch)
			if err != nil {
				// Debian's libseccomp 2.5.4 stops at futex_wake (454) and
				// lacks uprobe and uretprobe: newer than it.
				t.Logf("%v %s (%d): libseccomp cannot name it", tc.arch, e.name, e.nr)
				continue
			}
			if uint32(sc) != e.nr {
				t.Errorf("%v %s: %d here, %d in libseccomp", tc.arch, e.name, e.nr, sc)
			}
		}
		for nr := range 1024 {
			name, err := libseccomp.ScmpSyscall(nr).GetNameByArch(tc.arch)
			if err != nil {
				continue
			}
			if got, ok := tc.table.lookup(name); !ok || got != uint32(nr) {
				t.Errorf("libseccomp names %v %d %s; the table has %d, %v", tc.arch, nr, name, got, ok)
			}
		}
	}
}

// argVectors are arguments that sit on the edges of the profiles'
// conditions, and random ones.
func argVectors() [][6]uint64 {
	edges := []uint64{0, 1, 8, 16, 17, 40, 0x7fffffff, 0x80000000, 0xffffffff, 1 << 32, 1<<32 | 40,
		1<<64 - 1, tiocsti, tiocsti | 1<<32, 0x15412, 0xff5412, 0x403, 0x100000402, 0x200000403, 0x777, 0x5401, 0x5413, tioclinux, unix.TCGETS, 0x3d0f00, 0x11, 0x20008, 0xffffffff00000000}
	for _, f := range cloneNewFlags {
		edges = append(edges, f.bit, f.bit|0x11, f.bit|1<<40)
	}
	for _, b := range personalityFlags {
		edges = append(edges, b, b|bit31)
	}
	for fam := uint64(0); fam < 46; fam++ {
		edges = append(edges, fam)
	}
	edges = append(edges, 0x12, 0x22, 0x33, 0x44)
	// The guard's modes, flags, socket types and protocols.
	edges = append(edges, 0o4755, 0o2755, 0o6000, 0o1777, 0o644, 0o100, 0o102, 0o20200002, unix.S_IFREG|0o4755,
		0x20000000, 0x20004000, 2, 3, 4, 5, 6, 7, 10, 15, 18, 58, 132, 136, 256, 262, 1<<32|6, 1<<32|2, 0x80801, 0x80802)
	// podman's socket rules: the audit netlink socket, and its neighbours.
	out := [][6]uint64{{16, 3, 9}, {16, 3, 0}, {2, 1, 9}, {16, 2, 9}}
	for _, v := range edges {
		out = append(out, [6]uint64{v}, [6]uint64{0, v}, [6]uint64{v, v, v, v, v, v})
	}
	rnd := rand.New(rand.NewSource(1))
	for range 200 {
		var v [6]uint64
		for i := range v {
			v[i] = rnd.Uint64() >> uint(rnd.Intn(64))
		}
		out = append(out, v)
	}
	return out
}

func TestCompilerAgreesWithLibseccomp(t *testing.T) {
	b, err := json.Marshal(docker.DefaultProfile())
	if err != nil {
		t.Fatal(err)
	}
	dockerProf, err := ParseOCI(b, "docker-default", amd64Host)
	if err != nil {
		t.Fatal(err)
	}
	allowlist := Profile{Name: "allowlist", DefaultAction: Action{Kind: ActKillThread}, Rules: []Rule{
		{Names: []string{"read", "write", "exit_group"}, Action: Action{Kind: ActAllow}},
		{Names: []string{"openat"}, Action: Action{Kind: ActAllow}, Args: []Arg{{Index: 2, Op: OpLE, Value: 0x80000}}},
		{Names: []string{"mmap"}, Action: Action{Kind: ActAllow}, Args: []Arg{{Index: 1, Op: OpLT, Value: 1 << 33}, {Index: 2, Op: OpNE, Value: 7}}},
		{Names: []string{"kill"}, Action: Action{Kind: ActTrap}, Args: []Arg{{Index: 1, Op: OpGT, Value: 9}}},
		{Names: []string{"tgkill"}, Action: Action{Kind: ActLog}, Args: []Arg{{Index: 0, Op: OpGE, Value: 1<<32 | 5}}},
		{Names: []string{"ioctl"}, Action: Action{Kind: ActErrno, Errno: 25}, Args: []Arg{{Index: 1, Op: OpMaskedEq, Value: 0xffff00000000ff00, ValueTwo: 0x5400}}},
		// Bits of the value outside the mask do not count.
		{Names: []string{"fcntl"}, Action: Action{Kind: ActErrno, Errno: 1}, Args: []Arg{{Index: 1, Op: OpMaskedEq, Value: 0xffff, ValueTwo: 0x15412}}},
		{Names: []string{"ioctl"}, Action: Action{Kind: ActErrno, Errno: 25}, Args: []Arg{{Index: 0, Op: OpEQ, Value: 40}, {Index: 1, Op: OpGT, Value: 1 << 33}}},
		// A rule that can fail on the high half, then one on the same low
		// half: the second must load its word again.
		{Names: []string{"fcntl"}, Action: Action{Kind: ActErrno, Errno: 1}, Args: []Arg{{Index: 2, Op: OpMaskedEq, Value: 0xffffffff00000fff, ValueTwo: 0x100000402}}},
		{Names: []string{"fcntl"}, Action: Action{Kind: ActErrno, Errno: 1}, Args: []Arg{{Index: 2, Op: OpMaskedEq, Value: 0xfff, ValueTwo: 0x403}}},
		{Names: []string{"fcntl"}, Action: Action{Kind: ActErrno, Errno: 1}, Args: []Arg{{Index: 2, Op: OpMaskedEq, Value: 0x10, ValueTwo: 0x10}}},
		{Names: []string{"fcntl"}, Action: Action{Kind: ActErrno, Errno: 1}, Args: []Arg{{Index: 2, Op: OpMaskedEq, Value: 0xfff, ValueTwo: 0x777}}},
		// Two conditions, the first can fail with another word in A.
		{Names: []string{"lseek"}, Action: Action{Kind: ActErrno, Errno: 1}, Args: []Arg{{Index: 0, Op: OpEQ, Value: 40}, {Index: 1, Op: OpMaskedEq, Value: 0xffff, ValueTwo: 0x5401}}},
		{Names: []string{"lseek"}, Action: Action{Kind: ActErrno, Errno: 1}, Args: []Arg{{Index: 1, Op: OpMaskedEq, Value: 0xffff, ValueTwo: 0x5413}}},
	}}
	podman, err := os.ReadFile("../integration/testdata/containers-seccomp.json")
	if err != nil {
		t.Fatal(err)
	}
	podmanProf, err := ParseOCI(podman, "containers-seccomp.json", amd64Host)
	if err != nil {
		t.Fatal(err)
	}
	vectors := argVectors()
	guards := []Profile{Guard(GuardOptions{}), Guard(GuardOptions{NoNetwork: true}), Guard(GuardOptions{Ports: &PortGuard{Connect: true, Bind: true}})}
	for _, p := range append([]Profile{Default(Options{}), Default(Options{AllowUserns: true}), dockerProf, allowlist, podmanProf, resolutionProfile(),
		LandlockOnly(LandlockOnlyOptions{Connect: true, Unix: UnixNoDatagram, Entries: true, Listen: true}), LandlockOnly(LandlockOnlyOptions{Unix: UnixPairsOnly})}, guards...) {
		mine, err := compileFor(p, "amd64")
		if err != nil {
			t.Fatalf("%s: %v", p.Name, err)
		}
		ref := compileWithLibseccomp(t, p)
		var nrs []uint32
		for nr := range uint32(480) {
			if _, err := libseccomp.ScmpSyscall(nr).GetName(); err == nil {
				nrs = append(nrs, nr) // the reference can name it, so filter it
			}
		}
		// No call at all, x32's, and numbers no x86_64 call has.
		nrs = append(nrs, 0xffffffff, x32Bit|39, x32Bit|512, 400, 1000, x32Bit-1)
		diffs := 0
		for _, nr := range nrs {
			if diffs >= 10 {
				break
			}
			for _, args := range vectors {
				got, want := run(t, mine.Program, auditArchX86_64, nr, args), run(t, ref, auditArchX86_64, nr, args)
				if got != want {
					t.Errorf("%s: call %d with %#x: %#x, libseccomp %#x", p.Name, nr, args, got, want)
					diffs++
					break
				}
			}
		}
		t.Logf("%s: %d instructions (libseccomp: %d)", p.Name, len(mine.Program), len(ref))
	}
}
