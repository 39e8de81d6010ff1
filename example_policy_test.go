package nsrun_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/nsrun/nsrun"
)

// Precedence: a mandatory deny of a directory drops the user's grant
// below it; among rules of one source for one path, the stricter wins.
func ExampleEffective() {
	eff, overruled := nsrun.Effective([]nsrun.Rule{
		{Path: "/home/u", Access: nsrun.Deny, Source: nsrun.SourceMandatory},
		{Path: "/home/u/.ssh", Access: nsrun.ReadWrite, Source: nsrun.SourceUser},
		{Path: "/work", Access: nsrun.ReadWrite, Source: nsrun.SourceUser},
		{Path: "/work", Access: nsrun.ReadOnly, Source: nsrun.SourceUser},
	})
	for _, r := range eff {
		fmt.Println(r.Access, r.Path)
	}
	for _, o := range overruled {
		fmt.Println(o)
	}
	// Output:
	// deny /home/u
	// ro /work
	// rw /work (user): dropped by ro /work (user)
	// rw /home/u/.ssh (user): dropped by deny /home/u (mandatory)
}

// The deepest rule covering a path decides; the read-only root covers the
// rest.
func ExampleResolve() {
	eff, _ := nsrun.Effective([]nsrun.Rule{
		{Path: "/work", Access: nsrun.ReadWrite},
		{Path: "/work/.git", Access: nsrun.ReadOnly},
	})
	for _, p := range []string{"/work/main.go", "/work/.git/config", "/etc/passwd"} {
		access, by, ok := nsrun.Resolve(eff, p)
		fmt.Println(p, access, by.Path, ok)
	}
	// Output:
	// /work/main.go rw /work true
	// /work/.git/config ro /work/.git true
	// /etc/passwd ro  false
}

// Explain answers "why was this refused?" with the rule that decides.
func ExampleEffect_Explain() {
	eff, _ := nsrun.Effective([]nsrun.Rule{{Path: "/nonexistent-example/ws", Access: nsrun.ReadWrite}})
	e := &nsrun.Effect{Root: "/", Rules: eff}
	for _, p := range []string{"/nonexistent-example/ws/out", "/nonexistent-example/other"} {
		x := e.Explain(p)
		by := "the read-only root"
		if x.Rule != nil {
			by = x.Rule.Path
		}
		fmt.Println(x.Path, x.Access, "by", by)
	}
	// Output:
	// /nonexistent-example/ws/out rw by /nonexistent-example/ws
	// /nonexistent-example/other ro by the read-only root
}

// A policy file's rules are the baseline a command line adds to; unknown
// fields are refused.
func ExampleParsePolicyFile() {
	pf, err := nsrun.ParsePolicyFile([]byte(`{"version": 1, "net": "none",
		"rules": [{"path": "/srv/ws", "access": "rw"}, {"path": "/srv/ws/secrets", "access": "deny"}]}`), "/")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range pf.Policy.Rules {
		fmt.Println(r.Access, r.Path, r.Source)
	}
	_, err = nsrun.ParsePolicyFile([]byte(`{"version": 1, "netwrok": "host"}`), "/")
	fmt.Println(err)
	// Output:
	// rw /srv/ws baseline
	// deny /srv/ws/secrets baseline
	// json: unknown field "netwrok"
}

// Subtree builds a grant from a root and an identifier, refusing names
// that would lead elsewhere.
func ExampleSubtree() {
	root, _ := os.MkdirTemp("", "tenants")
	defer os.RemoveAll(root)
	_ = os.Mkdir(filepath.Join(root, "alice"), 0o755)
	r, err := nsrun.Subtree(root, "alice", nsrun.ReadWrite, nsrun.SourceUser)
	fmt.Println(filepath.Base(r.Path), r.Access, err)
	_, err = nsrun.Subtree(root, "../etc", nsrun.ReadWrite, nsrun.SourceUser)
	fmt.Println(err != nil)
	// Output:
	// alice rw <nil>
	// true
}
