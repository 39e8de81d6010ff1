package paths

import (
	"fmt"
	"os"
	"os/user"
	"path/filepath"
)

// Homes are the caller's home directories: the password database's for
// its uid and $HOME, both when they differ, canonical, $HOME's first.
func Homes() []string {
	var homes []string
	add := func(h string) {
		if h == "" || !filepath.IsAbs(h) {
			return
		}
		if c, err := filepath.EvalSymlinks(h); err == nil {
			h = c
		}
		for _, x := range homes {
			if x == h {
				return
			}
		}
		homes = append(homes, h)
	}
	add(os.Getenv("HOME"))
	if u, err := user.LookupId(fmt.Sprint(os.Getuid())); err == nil {
		add(u.HomeDir)
	}
	return homes
}

// CanonicalAncestor is abs with its longest existing ancestor made
// canonical and the missing rest joined on.
func CanonicalAncestor(abs string) string {
	rest := ""
	for d := abs; ; d = filepath.Dir(d) {
		if canon, err := filepath.EvalSymlinks(d); err == nil {
			return filepath.Join(canon, rest)
		}
		if _, err := os.Lstat(d); err == nil || d == filepath.Dir(d) {
			return abs
		}
		rest = filepath.Join(filepath.Base(d), rest)
	}
}
