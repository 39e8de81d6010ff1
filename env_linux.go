package nsrun

import "strings"

// secretNames are the names SecretEnv matches (and SecretEnvKept does
// not) among names, in their order: those whose removal nsrun guessed.
func secretNames(names []string) []string {
	var out []string
	for _, n := range names {
		if matchAny(SecretEnv, n) && !matchAny(SecretEnvKept, n) {
			out = append(out, n)
		}
	}
	return out
}

// getEnv is the last value of k in env.
func getEnv(env []string, k string) (string, bool) {
	v, ok := "", false
	for _, kv := range env {
		if name, val, _ := strings.Cut(kv, "="); name == k {
			v, ok = val, true
		}
	}
	return v, ok
}
