package seccomp

import "testing"

// FuzzParseOCI: any input is a profile or an error, never a panic, and a
// parsed profile has only known actions and operators.
func FuzzParseOCI(f *testing.F) {
	f.Add([]byte(`{"defaultAction": "SCMP_ACT_ALLOW"}`))
	f.Add([]byte(`{"defaultAction": "SCMP_ACT_ERRNO", "defaultErrnoRet": 1, "archMap": [{"architecture": "SCMP_ARCH_X86_64", "subArchitectures": ["SCMP_ARCH_X86"]}],
		"syscalls": [{"names": ["read"], "action": "SCMP_ACT_ALLOW", "includes": {"minKernel": "4.8"}},
		{"names": ["ioctl"], "action": "SCMP_ACT_ERRNO", "args": [{"index": 1, "value": 4294967295, "valueTwo": 21522, "op": "SCMP_CMP_MASKED_EQ"}]}]}`))
	f.Add([]byte(`{"defaultAction": "SCMP_ACT_NOTIFY"}`))
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
	})
}
