package plan

import "strings"

// setEnv sets k=v in env, replacing every earlier value (as the root
// package's setEnv).
func setEnv(env []string, k, v string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if name, _, _ := strings.Cut(kv, "="); name != k {
			out = append(out, kv)
		}
	}
	return append(out, k+"="+v)
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
