package seccomp

import "testing"

func TestTrapping(t *testing.T) {
	p := Profile{Name: "p", DefaultAction: Action{Kind: ActErrno, Errno: errEPERM}, Rules: []Rule{
		{Names: []string{"keyctl"}, Action: Action{Kind: ActErrno, Errno: errEPERM}},
		{Names: []string{"clone3"}, Action: Action{Kind: ActErrno, Errno: errENOSYS}},
		{Names: []string{"getpid"}, Action: Action{Kind: ActAllow}},
		{Names: []string{"reboot"}, Action: Action{Kind: ActKillProcess}},
	}}
	q := p.Trapping(0x8000)
	want := []Action{{Kind: ActTrap, Errno: 0x8000 | errEPERM}, {Kind: ActTrap, Errno: 0x8000 | errENOSYS}, {Kind: ActAllow}, {Kind: ActKillProcess}}
	for i, r := range q.Rules {
		if r.Action != want[i] {
			t.Errorf("rule %v: %+v, want %+v", r.Names, r.Action, want[i])
		}
	}
	if q.DefaultAction != (Action{Kind: ActTrap, Errno: 0x8000 | errEPERM}) {
		t.Errorf("default: %+v", q.DefaultAction)
	}
	if p.Rules[0].Action.Kind != ActErrno {
		t.Error("Trapping changed the profile it was given")
	}
	if _, err := Compile(q); err != nil {
		t.Errorf("a trapping profile does not compile: %v", err)
	}
}
