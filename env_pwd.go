//go:build linux || darwin

package nsrun

// withPWD sets PWD to dir, the payload's working directory, over any PWD
// env has: the caller's names the caller's directory, and programs (a
// shell, make) trust PWD as the name of their own. Edits of the
// environment (clearing it included) cannot take it away, as in
// bubblewrap.
func withPWD(env []string, dir string) []string { return setEnv(env, "PWD", dir) }
