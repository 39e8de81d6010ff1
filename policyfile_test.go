package nsrun

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParsePolicyFile(t *testing.T) {
	pf, err := ParsePolicyFile([]byte(`{
		"version": 1, "preset": "agent",
		"rules": [{"path": "ws", "access": "rw"}, {"path": "/etc/ssl", "access": "ro", "source": "mandatory"},
		          {"path": "/s", "access": "deny", "source": "user"}, {"path": "/c", "access": "tmpfs"}],
		"net": "host", "allow_connect": ["443", "udp:53"], "allow_bind": ["8000-8001"],
		"isolation": "landlock", "landlock": "auto", "seccomp": "prof.json", "allow_userns": true, "strict": true, "proc": "host",
		"root": "", "hostname": "h", "uid": 5, "gid": 6, "chdir": "ws", "env": ["A=1"], "unset_env": ["B"],
		"keep_env": ["AWS_REGION"], "home": "h", "protect_git": true,
		"clear_env": true, "timeout": "90s"}`), "/etc/nsrun")
	if err != nil {
		t.Fatal(err)
	}
	p := pf.Policy
	wantRules := []Rule{{Path: "/etc/nsrun/ws", Access: ReadWrite, Source: SourceBaseline}, {Path: "/etc/ssl", Access: ReadOnly, Source: SourceMandatory},
		{Path: "/s", Access: Deny, Source: SourceUser}, {Path: "/c", Access: Tmpfs, Source: SourceBaseline}}
	if !reflect.DeepEqual(p.Rules, wantRules) {
		t.Errorf("rules %+v", p.Rules)
	}
	if p.Net != NetHost || p.Isolation != IsolationLandlock || p.Proc != ProcHost || p.Seccomp != "/etc/nsrun/prof.json" || !p.AllowUserns || !p.Strict ||
		p.Hostname != "h" || *p.UID != 5 || *p.GID != 6 || len(p.AllowConnect) != 2 || p.AllowBind[0].Last != 8001 ||
		!reflect.DeepEqual(p.KeepEnv, []string{"AWS_REGION"}) || p.Home != HomePersistent || p.HomeDir != "/etc/nsrun/h" || !p.ProtectGit {
		t.Errorf("policy %+v", p)
	}
	if pf.Preset != "agent" || pf.Dir != "/etc/nsrun/ws" || pf.Timeout != 90*time.Second || !pf.ClearEnv ||
		!reflect.DeepEqual(pf.Env, []string{"A=1"}) || !reflect.DeepEqual(p.UnsetEnv, []string{"B"}) {
		t.Errorf("file %+v", pf)
	}
	for _, tc := range []struct{ json, want string }{
		{`{"version": 1, "rulez": []}`, `unknown field "rulez"`},
		{`{"version": 2}`, "version 2"},
		{`{"version": 1, "proc": "shared"}`, `proc "shared"`},
		{`{}`, "version 0"},
		{`{"version": 1, "rules": [{"path": "/x", "access": "write"}]}`, `rules[0].access "write"`},
		{`{"version": 1, "rules": [{"path": "/x", "access": "rw", "source": "root"}]}`, `rules[0].source "root"`},
		{`{"version": 1, "rules": [{"path": "", "access": "rw"}]}`, "rules[0].path: empty"},
		{`{"version": 1, "rules": [{"path": "/x", "access": "rw", "mode": 1}]}`, `unknown field "mode"`},
		{`{"version": 1, "net": "bridge"}`, `net "bridge"`},
		{`{"version": 1, "allow_connect": ["http"]}`, `allow_connect "http"`},
		{`{"version": 1, "unset_env": ["A=B"]}`, `unset_env "A=B"`},
		{`{"version": 1, "keep_env": [""]}`, `keep_env "": empty pattern`},
		{`{"version": 1, "timeout": "soon"}`, `timeout "soon"`},
		{`{"version": 1, "uid": "root"}`, "uid"},
	} {
		if _, err := ParsePolicyFile([]byte(tc.json), "/d"); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.json, err, tc.want)
		}
	}
}

// The filesystem rules in a file: a place inside is taken as it is, a
// host path from the file's directory, a symlink's target as written.
func TestParsePolicyFileFilesystemRules(t *testing.T) {
	pf, err := ParsePolicyFile([]byte(`{"version": 1, "keep_changes": "kept", "sys": "host", "rules": [
		{"path": "/work", "from": "proj", "access": "rw"},
		{"path": "/etc/hosts", "from": "/srv/hosts", "access": "file"},
		{"path": "/lib64", "from": "usr/lib64", "access": "symlink"},
		{"path": "/opt/x", "access": "dir"},
		{"path": "ws", "access": "overlay"},
		{"path": "/dev/kvm", "access": "dev"},
		{"path": "/dev/loop0", "access": "dev-block"}]}`), "/etc/nsrun")
	if err != nil {
		t.Fatal(err)
	}
	want := []Rule{
		{Path: "/work", From: "/etc/nsrun/proj", Access: ReadWrite, Source: SourceBaseline},
		{Path: "/etc/hosts", From: "/srv/hosts", Access: Copy, Source: SourceBaseline},
		{Path: "/lib64", From: "usr/lib64", Access: Symlink, Source: SourceBaseline},
		{Path: "/opt/x", Access: Directory, Source: SourceBaseline},
		{Path: "/etc/nsrun/ws", Access: Overlay, Source: SourceBaseline},
		{Path: "/dev/kvm", Access: Device, Source: SourceBaseline},
		{Path: "/dev/loop0", Access: BlockDevice, Source: SourceBaseline},
	}
	if !reflect.DeepEqual(pf.Policy.Rules, want) {
		t.Errorf("rules\n%+v\nwant\n%+v", pf.Policy.Rules, want)
	}
	if pf.Policy.KeepChanges != "/etc/nsrun/kept" || pf.Policy.Sys != SysHost {
		t.Errorf("policy %+v", pf.Policy)
	}
	if _, err := ParsePolicyFile([]byte(`{"version": 1, "sys": "none"}`), "/d"); err == nil || !strings.Contains(err.Error(), `sys "none"`) {
		t.Errorf("bad sys: %v", err)
	}
}
