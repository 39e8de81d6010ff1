package windows

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestMakePlan(t *testing.T) {
	p, err := MakePlan(Input{
		Writable: []string{`C:\ws`, `D:\cache`},
		ReadOnly: []string{`C:\ws\.git`},
		Denied:   []string{`C:\WS\secrets`},
		TempDir:  `C:\Users\me\AppData\Local\Temp\nsrun-1`,
	})
	if err != nil {
		t.Fatal(err)
	}
	inherit := uint32(objectInherit | containerInherit)
	want := []ACE{
		{Path: `C:\ws`, Kind: Allow, Rights: Modify, Inherit: inherit},
		{Path: `D:\cache`, Kind: Allow, Rights: Modify, Inherit: inherit},
		{Path: `C:\Users\me\AppData\Local\Temp\nsrun-1`, Kind: Allow, Rights: Modify, Inherit: inherit},
		{Path: `C:\ws\.git`, Kind: Deny, Rights: fileWriteRights, Inherit: inherit},
		{Path: `C:\WS\secrets`, Kind: Deny, Rights: fileAllRights, Inherit: inherit},
	}
	if !reflect.DeepEqual(p.ACEs, want) {
		t.Errorf("ACEs\n got %+v\nwant %+v", p.ACEs, want)
	}
	if !reflect.DeepEqual(p.RestrictingSIDs, []SID{SandboxSID, LogonSID, Everyone}) {
		t.Errorf("SIDs %v", p.RestrictingSIDs)
	}
	if len(p.NotEnforced) == 0 || !strings.Contains(strings.Join(p.NotEnforced, ";"), "reads are not confined") {
		t.Errorf("not enforced: %v", p.NotEnforced)
	}
}

// Without WRITE_RESTRICTED the restricting SIDs would not gate writes and
// the sandbox would protect nothing: every plan must carry the flag.
func TestEveryPlanRestrictsWrites(t *testing.T) {
	for _, in := range []Input{{}, {Writable: []string{`C:\ws`}}, {TempDir: `C:\t`}} {
		p, err := MakePlan(in)
		if err != nil {
			t.Fatal(err)
		}
		if p.TokenFlags&WriteRestricted == 0 || p.TokenFlags&DisableMaxPrivilege == 0 || p.TokenFlags&LuaToken == 0 {
			t.Errorf("token flags %#x", p.TokenFlags)
		}
	}
	if TokenFlags != 0xD {
		t.Errorf("TokenFlags = %#x, want DISABLE_MAX_PRIVILEGE|LUA_TOKEN|WRITE_RESTRICTED", TokenFlags)
	}
	// Modify must not include changing permissions or ownership.
	const writeDAC, writeOwner = 0x00040000, 0x00080000
	if Modify&(writeDAC|writeOwner) != 0 {
		t.Errorf("Modify %#x lets the payload rewrite ACLs", Modify)
	}
}

func TestMakePlanRefuses(t *testing.T) {
	for _, in := range []Input{
		{Writable: []string{`relative\ws`}},
		{Writable: []string{`C:\ws`}, ReadOnly: []string{`C:\other`}},
		{Writable: []string{`C:\ws`}, Denied: []string{`C:\wsx\secret`}},
	} {
		if _, err := MakePlan(in); err == nil {
			t.Errorf("%+v: want an error", in)
		}
	}
}

func TestJournalRoundTripAndReplay(t *testing.T) {
	entries := []Entry{{SID: "S-1-9-1-2-3-4", Path: `C:\ws`}, {SID: "S-1-9-1-2-3-4", Path: `C:\ws\.git`}}
	var buf bytes.Buffer
	if err := EncodeJournal(&buf, entries); err != nil {
		t.Fatal(err)
	}
	// A crash while writing leaves a partial last line: it is ignored.
	got, err := DecodeJournal(strings.NewReader(buf.String() + `{"sid": "S-1-9`))
	if err != nil || !reflect.DeepEqual(got, entries) {
		t.Fatalf("decode: %v %v", got, err)
	}
	if _, err := DecodeJournal(strings.NewReader("garbage\n" + buf.String())); err == nil {
		t.Error("a bad line before the end must be an error")
	}
	var revoked []string
	left, errs := Replay(got, func(e Entry) error {
		if strings.HasSuffix(e.Path, ".git") {
			return errors.New("access denied")
		}
		revoked = append(revoked, e.Path)
		return nil
	})
	if !reflect.DeepEqual(revoked, []string{`C:\ws`}) || len(left) != 1 || left[0].Path != `C:\ws\.git` || len(errs) != 1 {
		t.Errorf("replay: revoked %v, left %v, errs %v", revoked, left, errs)
	}
}
