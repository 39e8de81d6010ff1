package nsrun

import (
	"errors"
	"io"
	"os"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/mounts"
)

// accountFiles gives the sandbox a read-only /etc/passwd and /etc/group
// with entries for the payload's ids, copies of what it would see there
// with one line added, where that lacks them: with --uid or --gid, in
// another root, or under a rule on those files. whoami, id -un, Python's
// getpass and ssh look the payload up there. The host's files are never
// changed; a file a rule decides (a copy, a deny) is left as it is.
func (c *Cmd) accountFiles(p *Policy, root string, rules []canonRule, env []string, in *mounts.Input) error {
	covered := false
	for _, f := range []string{"/etc/passwd", "/etc/group"} {
		if _, ok := cover(rules, f); ok {
			covered = true
		}
	}
	if p.UID == nil && p.GID == nil && p.Root == "" && !covered {
		return nil
	}
	ids, err := policyIDs(p)
	if err != nil {
		return err
	}
	hostPasswd, _ := readView("/", "etc/passwd")
	hostGroup, _ := readView("/", "etc/group")
	a := account{uid: ids.uid, gid: ids.gid, user: lookupName(hostPasswd, ids.hostUID), group: lookupName(hostGroup, ids.hostGID)}
	if a.user == "" {
		a.user, _ = getEnv(env, "USER")
	}
	a.home, _ = getEnv(env, "HOME")
	for _, f := range []struct {
		path string
		with func(string, account) (string, bool)
	}{{"/etc/passwd", passwdWith}, {"/etc/group", groupWith}} {
		db, ok := viewFile(root, rules, f.path)
		if !ok {
			continue
		}
		if out, added := f.with(db, a); added {
			in.Files = append(in.Files, mounts.File{Path: f.path, Content: out})
		}
	}
	return nil
}

// viewFile reads the file the sandbox would show at p, from the tree its
// deepest rule (or the root) shows there, following symlinks only inside
// that tree; ok is false where a rule decides what is there (a copy, a
// deny, a symlink) or the file cannot be read, which is then left alone.
func viewFile(root string, rules []canonRule, p string) (db string, ok bool) {
	base, rel := root, strings.TrimPrefix(p, "/")
	if r, covered := cover(rules, p); covered {
		switch r.Access {
		case ReadOnly, ReadWrite, Overlay:
			base = r.hostPath()
			if r.Canon == "/" && !r.mapped() {
				base = root
			}
			rel = strings.TrimPrefix(strings.TrimPrefix(p, r.Canon), "/")
		case Tmpfs, Directory:
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
// no symlink (over one, nsrun mounts nothing), up to maxCopy bytes.
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
	b, err := io.ReadAll(io.LimitReader(f, maxCopy))
	return string(b), err
}
