package nsrun

import (
	"fmt"
	"strconv"
	"strings"
)

// account is who the payload is, for an entry in the sandbox's
// /etc/passwd and /etc/group.
type account struct {
	uid, gid int
	user     string // the caller's login name, or ""
	group    string // the caller's primary group's name, or ""
	home     string // the payload's HOME
}

// withEntry returns db (the lines of a passwd or group file) with an entry
// for id when it has none, and whether it added one. The entry takes the
// name wanted if no entry has it, else "nsrun", else "nsrun-ID"; line
// makes the entry from the name.
func withEntry(db string, id int, want string, line func(name string) string) (string, bool) {
	names := map[string]bool{}
	for _, l := range strings.Split(db, "\n") {
		f := strings.Split(l, ":")
		if len(f) < 3 {
			continue
		}
		if n, err := strconv.Atoi(f[2]); err == nil && n == id {
			return db, false
		}
		names[f[0]] = true
	}
	name := want
	for _, n := range []string{want, "nsrun", fmt.Sprintf("nsrun-%d", id)} {
		if n != "" && !names[n] && validName(n) {
			name = n
			break
		}
	}
	if db != "" && !strings.HasSuffix(db, "\n") {
		db += "\n"
	}
	return db + line(name) + "\n", true
}

// validName reports whether n can be an account name in these files.
func validName(n string) bool {
	return n != "" && !strings.ContainsAny(n, ":\n\x00 ")
}

// passwdWith is a passwd file with an entry for a.uid.
func passwdWith(db string, a account) (string, bool) {
	home := a.home
	if !strings.HasPrefix(home, "/") || strings.ContainsAny(home, ":\n") {
		home = "/"
	}
	return withEntry(db, a.uid, a.user, func(name string) string {
		return fmt.Sprintf("%s:x:%d:%d:nsrun sandbox user:%s:/bin/sh", name, a.uid, a.gid, home)
	})
}

// groupWith is a group file with an entry for a.gid.
func groupWith(db string, a account) (string, bool) {
	return withEntry(db, a.gid, a.group, func(name string) string {
		return fmt.Sprintf("%s:x:%d:", name, a.gid)
	})
}

// lookupName finds the name of id in a passwd or group file.
func lookupName(db string, id int) string {
	for _, l := range strings.Split(db, "\n") {
		f := strings.Split(l, ":")
		if len(f) >= 3 {
			if n, err := strconv.Atoi(f[2]); err == nil && n == id {
				return f[0]
			}
		}
	}
	return ""
}
