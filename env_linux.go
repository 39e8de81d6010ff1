package nsrun

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
