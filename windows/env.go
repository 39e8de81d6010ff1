package windows

import "strings"

// WithTemp is env with TEMP and TMP (in any case: Windows' names are not
// case-sensitive) pointing at dir alone.
func WithTemp(env []string, dir string) []string {
	var out []string
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if !strings.EqualFold(k, "TEMP") && !strings.EqualFold(k, "TMP") {
			out = append(out, kv)
		}
	}
	return append(out, "TEMP="+dir, "TMP="+dir)
}
