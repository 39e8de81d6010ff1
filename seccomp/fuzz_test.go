package seccomp

import "testing"

// FuzzParseOCI: any input is a profile or an error, never a panic; a
// parsed profile has only known actions and operators; and a profile that
// compiles decides every call as the profile's rules say (evalProfile),
// for the calls it names and the values its conditions compare with.
func FuzzParseOCI(f *testing.F) {
	f.Add([]byte(`{"defaultAction": "SCMP_ACT_ALLOW"}`))
	f.Add([]byte(`{"defaultAction": "SCMP_ACT_ERRNO", "defaultErrnoRet": 1, "archMap": [{"architecture": "SCMP_ARCH_X86_64", "subArchitectures": ["SCMP_ARCH_X86"]}],
		"syscalls": [{"names": ["read"], "action": "SCMP_ACT_ALLOW", "includes": {"minKernel": "4.8"}},
		{"names": ["ioctl"], "action": "SCMP_ACT_ERRNO", "args": [{"index": 1, "value": 4294967295, "valueTwo": 21522, "op": "SCMP_CMP_MASKED_EQ"}]}]}`))
	f.Add([]byte(`{"defaultAction": "SCMP_ACT_NOTIFY"}`))
	f.Add([]byte(`{"defaultAction": "SCMP_ACT_KILL_THREAD", "syscalls": [
		{"names": ["read", "write", "openat", "close"], "action": "SCMP_ACT_ALLOW"},
		{"names": ["mmap"], "action": "SCMP_ACT_ALLOW", "args": [{"index": 1, "value": 8589934592, "op": "SCMP_CMP_LT"}, {"index": 2, "value": 7, "op": "SCMP_CMP_NE"}]},
		{"names": ["kill"], "action": "SCMP_ACT_TRAP", "args": [{"index": 1, "value": 9, "op": "SCMP_CMP_GT"}]},
		{"names": ["tgkill"], "action": "SCMP_ACT_LOG", "args": [{"index": 0, "value": 4294967301, "op": "SCMP_CMP_GE"}]},
		{"names": ["lseek"], "action": "SCMP_ACT_ERRNO", "args": [{"index": 1, "value": 16, "valueTwo": 16, "op": "SCMP_CMP_MASKED_EQ"}]},
		{"names": ["lseek"], "action": "SCMP_ACT_ERRNO", "args": [{"index": 1, "value": 255, "valueTwo": 3, "op": "SCMP_CMP_MASKED_EQ"}]},
		{"names": ["dup"], "action": "SCMP_ACT_ERRNO", "args": [{"index": 0, "value": 3, "op": "SCMP_CMP_LE"}]},
		{"names": ["dup2"], "action": "SCMP_ACT_ERRNO", "args": [{"index": 0, "value": 3, "op": "SCMP_CMP_EQ"}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParseOCI(data, "fuzz", Host{Arch: "SCMP_ARCH_X86_64", Kernel: [2]int{6, 18}})
		if err != nil {
			return
		}
		for _, r := range append([]Rule{{Action: p.DefaultAction}}, p.Rules...) {
			if _, ok := actionNames[r.Action.Kind]; !ok {
				t.Fatalf("unknown action kind %d", r.Action.Kind)
			}
			for _, a := range r.Args {
				if a.Op < OpNE || a.Op > OpMaskedEq || a.Index > 5 {
					t.Fatalf("bad argument condition %+v", a)
				}
			}
		}
		c, err := compileFor(p, "amd64")
		if err != nil {
			return
		}
		nrs, values := []uint32{0, 39, 400, 1000, noCall}, []uint64{0, 1, 1<<32 - 1, 1 << 32, 1<<64 - 1}
		for _, r := range p.Rules {
			for _, n := range r.Names {
				if nr, ok := syscallsAMD64.lookup(n); ok {
					nrs = append(nrs, nr, nr+1)
				}
			}
			for _, a := range r.Args {
				values = append(values, a.Value, a.Value-1, a.Value+1, a.ValueTwo, a.ValueTwo&a.Value, a.ValueTwo|^a.Value)
			}
		}
		for _, nr := range nrs {
			for i, v := range values {
				args := [6]uint64{v, values[(i+1)%len(values)], v, v ^ 0xff, v, v}
				if got, want := run(t, c.Program, auditArchX86_64, nr, args), evalProfile(t, p, nr, args); got != want {
					t.Fatalf("call %d with %#x: program %#x, profile %#x", nr, args, got, want)
				}
			}
		}
	})
}

// evalProfile decides a native call as the profile's rules say, straight
// from them, in libseccomp's reading: rules with the default action do
// nothing; the first unconditional rule decides; else any rule whose
// conditions all hold (compileFor refuses rules with different actions
// that can hold together); else the default.
func evalProfile(t *testing.T, p Profile, nr uint32, args [6]uint64) uint32 {
	ret := func(a Action) uint32 {
		v, err := retValue(a)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	if nr&x32Bit != 0 && nr != noCall {
		return retKillProcess
	}
	var matched *Action
	for _, r := range p.Rules {
		if r.Action == p.DefaultAction {
			continue
		}
		named := false
		for _, n := range r.Names {
			if got, ok := syscallsAMD64.lookup(n); ok && got == nr {
				named = true
			}
		}
		if !named {
			continue
		}
		if len(r.Args) == 0 {
			return ret(r.Action)
		}
		holds := true
		for _, a := range r.Args {
			holds = holds && condHolds(a, args[a.Index])
		}
		if holds && matched == nil {
			act := r.Action
			matched = &act
		}
	}
	if matched != nil {
		return ret(*matched)
	}
	return ret(p.DefaultAction)
}

func condHolds(a Arg, v uint64) bool {
	switch a.Op {
	case OpNE:
		return v != a.Value
	case OpLT:
		return v < a.Value
	case OpLE:
		return v <= a.Value
	case OpEQ:
		return v == a.Value
	case OpGE:
		return v >= a.Value
	case OpGT:
		return v > a.Value
	case OpMaskedEq:
		return v&a.Value == a.ValueTwo&a.Value
	}
	return false
}
