package nsrun

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nsrun/nsrun/darwin"
)

func TestSeatbeltProfileFromPolicy(t *testing.T) {
	ws := t.TempDir()
	ws, _ = filepath.EvalSymlinks(ws)
	os.Mkdir(filepath.Join(ws, ".git"), 0o755)
	os.Mkdir(filepath.Join(ws, "secrets"), 0o755)
	p := &Policy{Rules: []Rule{
		{Path: ws, Access: ReadWrite},
		{Path: filepath.Join(ws, ".git"), Access: ReadOnly},
		{Path: filepath.Join(ws, "secrets"), Access: Deny, Source: SourceMandatory},
		{Path: filepath.Join(ws, "secrets"), Access: ReadWrite},
	}}
	prof, err := p.SeatbeltProfile()
	if err != nil {
		t.Fatal(err)
	}
	values := map[string]string{}
	for _, prm := range prof.Params {
		values[prm.Value] = prm.Name
	}
	real := darwin.RealPath(ws)
	for _, want := range []string{
		`(allow file-read* file-write* process-exec (subpath (param "` + values[real] + `")))`,
		`(deny file-write* (subpath (param "` + values[real+"/.git"] + `")))`,
		`(deny file-read* file-write* process-exec (subpath (param "` + values[real+"/secrets"] + `")))`,
	} {
		if !strings.Contains(prof.Text, want) {
			t.Errorf("profile lacks %s:\n%s", want, prof.Text)
		}
	}
	if strings.Contains(prof.Text, "network*") {
		t.Error("the network must be denied without NetHost")
	}
	if args := prof.Args(); args[0] != "-p" || args[2] != "-D" {
		t.Errorf("args %q", args[:3])
	}
	for _, bad := range []*Policy{
		{Rules: []Rule{{Path: ws, Access: Tmpfs}}},
		{Hostname: "x"},
		{Isolation: IsolationLandlock},
		{AllowConnect: []PortRange{{Proto: "tcp", First: 1, Last: 1}}},
		{Home: HomePrivate},
		{ProtectGit: true},
		{UnsetEnv: []string{"X"}},
	} {
		_, err := bad.SeatbeltProfile()
		var se *SetupError
		var re *RuleError
		if err == nil || !errors.As(err, &se) && !errors.As(err, &re) {
			t.Errorf("%+v: %v", bad, err)
		}
	}
}

// TestSeatbeltRefusalsNameSettings: what Seatbelt cannot honour is refused
// by the setting's library name, or as the rule at fault.
func TestSeatbeltRefusalsNameSettings(t *testing.T) {
	for _, c := range []struct {
		p    Policy
		want string
	}{
		{Policy{Hostname: "x"}, "Policy.Hostname has no meaning with the macOS Seatbelt backend"},
		{Policy{Memory: 1 << 30}, "resource limits (Policy.Memory, Policy.Pids, Policy.CPU, Policy.Rlimits, Policy.TmpfsSize) has no meaning with the macOS Seatbelt backend"},
		{Policy{Rules: []Rule{{Path: "/dev/null", Access: Device}}}, "dev /dev/null: has no meaning with the macOS Seatbelt backend"},
	} {
		_, err := c.p.SeatbeltProfile()
		if err == nil || err.Error() != c.want || ExitCode(err) != ExitSetup {
			t.Errorf("%+v: %v, want %q", c.p, err, c.want)
		}
	}
}
