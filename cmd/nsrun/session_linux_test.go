package main

import (
	"reflect"
	"strings"
	"testing"
)

// exec takes --env, --chdir and --tty never; every other option is a
// session's and refused.
func TestParseExec(t *testing.T) {
	for _, tc := range []struct {
		args    string
		name    string
		argv    []string
		env     []string
		dir     string
		refused string
	}{
		{args: "s -- /bin/true", name: "s", argv: []string{"/bin/true"}},
		{args: "s /bin/echo -x", name: "s", argv: []string{"/bin/echo", "-x"}},
		{args: "s --env A=1 --env=B=2 --chdir /tmp -- sh -c x", name: "s", argv: []string{"sh", "-c", "x"}, env: []string{"A=1", "B=2"}, dir: "/tmp"},
		{args: "s --tty=never -- true", name: "s", argv: []string{"true"}},
		{args: "s --tty always -- true", name: "s", argv: []string{"true"}},
		{args: "s --tty sometimes -- true", refused: "--tty"},
		{args: "s --rw / -- true", refused: "--rw is refused"},
		{args: "s --net=host -- true", refused: "--net is refused"},
		{args: "s --seccomp off -- true", refused: "--seccomp is refused"},
		{args: "s --env A -- true", refused: "want K=V"},
		{args: "s --chdir rel -- true", refused: "absolute"},
		{args: "s --", refused: "no command"},
		{args: "../s -- true", refused: "session name"},
	} {
		name, req, _, err := parseExec(strings.Fields(tc.args))
		if tc.refused != "" {
			if err == nil || !strings.Contains(err.Error(), tc.refused) {
				t.Errorf("%q: %v, want an error with %q", tc.args, err, tc.refused)
			}
			continue
		}
		if err != nil || name != tc.name || !reflect.DeepEqual(req.Args, tc.argv) || !reflect.DeepEqual(req.Env, tc.env) || req.Dir != tc.dir {
			t.Errorf("%q: %q %+v %v", tc.args, name, req, err)
		}
	}
}

func TestOverEnv(t *testing.T) {
	got := overEnv([]string{"A=1", "B=2", "A=3"}, []string{"A=x", "C=y"})
	if want := []string{"B=2", "A=x", "C=y"}; !reflect.DeepEqual(got, want) {
		t.Errorf("overEnv: %q, want %q", got, want)
	}
}
