//go:build linux || darwin

package nsrun

import "strings"

// withPWD sets PWD to dir, the payload's working directory, over any PWD
// env has: the caller's names the caller's directory, and programs (a
// shell, make) trust PWD as the name of their own. Edits of the
// environment (clearing it included) cannot take it away, as in
// bubblewrap.
func withPWD(env []string, dir string) []string { return setEnv(env, "PWD", dir) }

// setEnv sets k=v in env, replacing every earlier value.
func setEnv(env []string, k, v string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if name, _, _ := strings.Cut(kv, "="); name != k {
			out = append(out, kv)
		}
	}
	return append(out, k+"="+v)
}
