// Package environ reads and edits an environment held as "KEY=value"
// strings, the form os.Environ and exec.Cmd.Env use, the one way the
// library's backends and its Linux planner do: the last value of a name is
// the one a program sees, and setting a name replaces every value it had.
// Names are compared exactly (as on Linux and macOS); patterns of names
// (the root's MatchEnv, UnsetEnv and KeepEnv) ignore case. It imports
// nothing of nsrun and works on every OS.
package environ

import "strings"

// Get is the last value of k in env, and whether env has k.
func Get(env []string, k string) (string, bool) {
	v, ok := "", false
	for _, kv := range env {
		if name, val, _ := strings.Cut(kv, "="); name == k {
			v, ok = val, true
		}
	}
	return v, ok
}

// Set is env with k=v in place of every value k had, at the end.
func Set(env []string, k, v string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if name, _, _ := strings.Cut(kv, "="); name != k {
			out = append(out, kv)
		}
	}
	return append(out, k+"="+v)
}
