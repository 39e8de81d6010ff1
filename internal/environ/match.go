package environ

import (
	"bytes"
	"encoding/pem"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// Match reports whether an environment variable's name matches a
// pattern: "*" stands for any run of characters (slashes and dots
// included: npm keys its tokens by registry URL), "?" for one, anything
// else for itself, case ignored (so *TOKEN* catches npm's _authToken).
func Match(pattern, name string) bool {
	return globMatch(strings.ToUpper(pattern), strings.ToUpper(name))
}

func globMatch(p, s string) bool {
	// Iterative matching with one backtrack point: linear in practice,
	// never exponential.
	pi, si, star, mark := 0, 0, -1, 0
	for si < len(s) {
		switch {
		case pi < len(p) && (p[pi] == '?' || p[pi] == s[si]):
			pi++
			si++
		case pi < len(p) && p[pi] == '*':
			star, mark = pi, si
			pi++
		case star >= 0:
			pi = star + 1
			mark++
			si = mark
		default:
			return false
		}
	}
	for pi < len(p) && p[pi] == '*' {
		pi++
	}
	return pi == len(p)
}

// CheckPattern refuses what cannot be a pattern for variable names.
func CheckPattern(p string) error {
	switch {
	case p == "":
		return errors.New("empty pattern")
	case strings.ContainsAny(p, "=\x00"):
		return errors.New("a variable name cannot hold '=' or NUL")
	}
	return nil
}

// Filter removes the variables whose names match an unset pattern and no
// keep pattern, and returns the names it removed, sorted. A variable that
// only the guesses (patterns that guess a secret from a name) match, and
// whose value holds no secret, stays.
func Filter(env, unset, keep, guesses []string) (out, removed []string) {
	if len(unset) == 0 {
		return env, []string{}
	}
	out = make([]string, 0, len(env))
	removed = []string{}
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if MatchAny(unset, k) && !MatchAny(keep, k) && !guessedButPlain(unset, guesses, kv) {
			removed = append(removed, k)
			continue
		}
		out = append(out, kv)
	}
	sort.Strings(removed)
	return out, removed
}

// guessedButPlain reports whether the variable kv is removed only on a
// guess from its name (every unset pattern that matches it is one of the
// guesses) and its value shows the guess wrong: it names a file of
// certificates (AWS_CA_BUNDLE, a CA bundle path, is no secret). A pattern
// the caller wrote itself removes whatever the value.
func guessedButPlain(unset, guesses []string, kv string) bool {
	k, v, _ := strings.Cut(kv, "=")
	for _, p := range unset {
		if Match(p, k) && !slices.Contains(guesses, p) {
			return false
		}
	}
	return HoldsNoSecret(v)
}

// maxCertBundle bounds the file HoldsNoSecret reads (the system bundle is
// about 200 KB).
const maxCertBundle = 16 << 20

// HoldsNoSecret reports whether a variable's value is known to hold no
// secret whatever its name: the absolute path of a regular file of PEM
// certificates alone (a CA bundle), with no key or other block.
func HoldsNoSecret(value string) bool {
	if !filepath.IsAbs(value) {
		return false
	}
	fi, err := os.Stat(value)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxCertBundle {
		return false
	}
	b, err := os.ReadFile(value)
	if err != nil {
		return false
	}
	certs := 0
	for {
		var block *pem.Block
		if block, b = pem.Decode(b); block == nil {
			break
		}
		switch block.Type {
		case "CERTIFICATE", "TRUSTED CERTIFICATE", "X509 CRL":
			certs++
		default:
			return false
		}
	}
	// A block pem.Decode could not read is no certificate.
	return certs > 0 && !bytes.Contains(b, []byte("-----BEGIN"))
}

// MatchAny reports whether name matches one of patterns.
func MatchAny(patterns []string, name string) bool {
	for _, p := range patterns {
		if Match(p, name) {
			return true
		}
	}
	return false
}
