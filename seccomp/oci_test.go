package seccomp

import (
	"strings"
	"testing"
)

var amd64Host = Host{Arch: "SCMP_ARCH_X86_64", Kernel: [2]int{6, 18}}

func TestParseOCI(t *testing.T) {
	p, err := ParseOCI([]byte(`{
		"defaultAction": "SCMP_ACT_ERRNO", "defaultErrnoRet": 38,
		"architectures": ["SCMP_ARCH_X86_64", "SCMP_ARCH_X86"],
		"syscalls": [
			{"names": ["read", "write"], "action": "SCMP_ACT_ALLOW"},
			{"name": "ioctl", "action": "SCMP_ACT_ERRNO", "errnoRet": 13,
			 "args": [{"index": 1, "value": 4294967295, "valueTwo": 21522, "op": "SCMP_CMP_MASKED_EQ"}]},
			{"names": ["mount"], "action": "SCMP_ACT_ALLOW", "includes": {"caps": ["CAP_SYS_ADMIN"]}},
			{"names": ["arm_only"], "action": "SCMP_ACT_ALLOW", "includes": {"arches": ["arm64"]}},
			{"names": ["new_enough"], "action": "SCMP_ACT_ALLOW", "includes": {"minKernel": "6.1"}},
			{"names": ["too_new"], "action": "SCMP_ACT_ALLOW", "includes": {"minKernel": "7.0"}},
			{"names": ["not_amd64"], "action": "SCMP_ACT_ALLOW", "excludes": {"arches": ["amd64"]}},
			{"names": ["without_caps"], "action": "SCMP_ACT_KILL_PROCESS", "excludes": {"caps": ["CAP_SYS_ADMIN"]}}
		]}`), "test.json", amd64Host)
	if err != nil {
		t.Fatal(err)
	}
	if p.DefaultAction != (Action{Kind: ActErrno, Errno: 38}) || len(p.ExtraArches) != 1 || p.ExtraArches[0] != "x86" {
		t.Errorf("profile %+v", p)
	}
	var names []string
	for _, r := range p.Rules {
		names = append(names, strings.Join(r.Names, "+"))
	}
	if got := strings.Join(names, " "); got != "read+write ioctl new_enough without_caps" {
		t.Errorf("rules that apply: %s", got)
	}
	if r := p.Rules[1]; r.Action != (Action{Kind: ActErrno, Errno: 13}) || r.Args[0] != (Arg{Index: 1, Value: 0xffffffff, ValueTwo: 21522, Op: OpMaskedEq}) {
		t.Errorf("ioctl rule %+v", r)
	}
}

func TestParseOCIRefusesWhatItCannotHonour(t *testing.T) {
	for _, tc := range []struct{ json, want string }{
		{`{"defaultAction": "SCMP_ACT_ALLOW", "bogus": 1}`, `unknown field "bogus"`},
		{`{"defaultAction": "SCMP_ACT_EXPLODE"}`, `unknown action "SCMP_ACT_EXPLODE"`},
		{`{"defaultAction": "SCMP_ACT_NOTIFY"}`, "needs a listener"},
		{`{"defaultAction": "SCMP_ACT_ALLOW", "flags": ["SECCOMP_FILTER_FLAG_LOG"]}`, "flags"},
		{`{"defaultAction": "SCMP_ACT_ALLOW", "listenerPath": "/run/x"}`, "user notification"},
		{`{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"names": ["read"], "action": "SCMP_ACT_ERRNO", "errnoRet": 5000}]}`, "not an errno"},
		{`{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"action": "SCMP_ACT_ERRNO"}]}`, "no names"},
		{`{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"names": ["read"], "action": "SCMP_ACT_ERRNO", "args": [{"index": 0, "value": 1, "op": "SCMP_CMP_ABOUT"}]}]}`, `unknown op "SCMP_CMP_ABOUT"`},
		{`{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"names": ["read"], "action": "SCMP_ACT_ERRNO", "args": [{"index": 6, "value": 1, "op": "SCMP_CMP_EQ"}]}]}`, "past the sixth"},
		{`{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"names": ["read"], "action": "SCMP_ACT_ERRNO", "errnoRet": 1, "extra": true}]}`, `unknown field "extra"`},
		{`{"defaultAction": "SCMP_ACT_ALLOW", "architectures": ["SCMP_ARCH_X86_64", "SCMP_ARCH_Z80"]}`, `unknown architecture "SCMP_ARCH_Z80"`},
		{`{"defaultAction": "SCMP_ACT_ALLOW", "archMap": [{"architecture": "SCMP_ARCH_Z80", "subArchitectures": []}]}`, `unknown architecture "SCMP_ARCH_Z80"`},
		{`not json`, "invalid character"},
	} {
		_, err := ParseOCI([]byte(tc.json), "p.json", amd64Host)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "p.json") {
			t.Errorf("%s: got %v, want an error naming p.json and %q", tc.json, err, tc.want)
		}
	}
}
