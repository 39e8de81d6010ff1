package plan

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/mounts"
)

// MaxCopy bounds a file the spec carries to the init (a Copy rule's, an
// account file): it travels in the spec, whose size the init bounds too.
const MaxCopy = 16 << 20

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

// IDs are who the payload is inside the sandbox, and who runs it on the
// host.
type IDs struct {
	UID, GID         int
	HostUID, HostGID int
}

// AccountFiles gives the sandbox a read-only /etc/passwd and /etc/group
// with entries for the payload's ids, copies of what it would see there
// with one line added, where that lacks them: with other ids, in another
// root, or under a rule on those files (always says the first two).
// whoami, id -un, Python's getpass and ssh look the payload up there. The
// host's files are never changed; a file a rule decides (a copy, a deny)
// is left as it is. user and home are the payload's USER and HOME.
func AccountFiles(ids IDs, always bool, root string, rules []Rule, user, home string) []mounts.File {
	covered := false
	for _, f := range []string{"/etc/passwd", "/etc/group"} {
		if _, ok := Cover(rules, f); ok {
			covered = true
		}
	}
	if !always && !covered {
		return nil
	}
	hostPasswd, _ := readView("/", "etc/passwd")
	hostGroup, _ := readView("/", "etc/group")
	a := account{uid: ids.UID, gid: ids.GID, user: lookupName(hostPasswd, ids.HostUID), group: lookupName(hostGroup, ids.HostGID), home: home}
	if a.user == "" {
		a.user = user
	}
	var files []mounts.File
	for _, f := range []struct {
		path string
		with func(string, account) (string, bool)
	}{{"/etc/passwd", passwdWith}, {"/etc/group", groupWith}} {
		db, ok := viewFile(root, rules, f.path)
		if !ok {
			continue
		}
		if out, added := f.with(db, a); added {
			files = append(files, mounts.File{Path: f.path, Content: out})
		}
	}
	return files
}

// viewFile reads the file the sandbox would show at p, from the tree its
// deepest rule (or the root) shows there, following symlinks only inside
// that tree; ok is false where a rule decides what is there (a copy, a
// deny, a symlink) or the file cannot be read, which is then left alone.
func viewFile(root string, rules []Rule, p string) (db string, ok bool) {
	base, rel := root, strings.TrimPrefix(p, "/")
	if r, covered := Cover(rules, p); covered {
		switch r.Access {
		case mounts.ReadOnly, mounts.ReadWrite, mounts.Overlay:
			base = r.HostPath()
			if r.Canon == "/" && !r.Mapped() {
				base = root
			}
			rel = strings.TrimPrefix(strings.TrimPrefix(p, r.Canon), "/")
		case mounts.Tmpfs, mounts.Directory:
			return "", true // empty there
		default:
			return "", false
		}
	}
	if rel == "" {
		return "", false // the rule is the file itself: a bind the caller chose
	}
	db, err := readView(base, rel)
	if errors.Is(err, unix.ENOENT) {
		return "", true
	}
	// A symlink on the way, or something else than a file: left as it is.
	return db, err == nil
}

// readView reads the regular file rel below the directory base, following
// no symlink (over one, nsrun mounts nothing), up to MaxCopy bytes.
func readView(base, rel string) (string, error) {
	dir, err := unix.Open(base, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return "", err
	}
	defer unix.Close(dir)
	fd, err := unix.Openat2(dir, rel, &unix.OpenHow{Flags: unix.O_RDONLY | unix.O_NONBLOCK | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_IN_ROOT | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS})
	if err != nil {
		return "", err
	}
	f := os.NewFile(uintptr(fd), rel)
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return "", unix.EINVAL
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxCopy))
	return string(b), err
}
