package plan

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/internal/errs"
	"github.com/nsrun/nsrun/internal/paths"
	"github.com/nsrun/nsrun/mounts"
)

// CheckRule refuses a rule on a path nsrun builds in a sandbox with
// namespaces, and warns about one that names a file through a symlink or
// one with other names; cwd is the caller's working directory, which a
// relative path is relative to. It reads the host but changes nothing.
func CheckRule(r Rule, cwd string, namespaces bool, warn func(format string, a ...any)) error {
	// The places nsrun builds itself in a sandbox with namespaces: rules
	// cannot change them.
	if res := mounts.Reserved(r.Canon); namespaces && res != "" {
		isDev := (r.Access == mounts.Device || r.Access == mounts.BlockDevice) && res == "/dev"
		switch {
		case res == "/sys":
			return &Error{Kind: KindRule, Rule: &r, Err: errs.New("%s is built by nsrun itself; rules cannot change it (%s shows the host's, read-only)", res, errs.SysHost)}
		case !isDev:
			return &Error{Kind: KindRule, Rule: &r, Err: fmt.Errorf("%s is built by nsrun itself; rules cannot change it", res)}
		}
	}
	if r.Info == nil {
		return nil // a directory or symlink of the sandbox's own
	}
	if namespaces && r.Access == mounts.ReadWrite && os.Getuid() == 0 {
		if kind := kernelSettingsFS(r.HostPath()); kind != "" {
			why := errs.New("is in a %s, which holds the host's kernel settings: writable, it would let the payload, the host's root, change the host; show it read-only", kind)
			if r.From == "" {
				why = errs.New("%w (%s)", why, errs.RuleReadOnly.With(r.Path))
			}
			return &Error{Kind: KindRule, Rule: &r, Err: why}
		}
	}
	if r.From == "" {
		if abs := paths.Abs(r.Path, cwd); abs != r.Canon {
			if fi, err := os.Lstat(abs); err == nil && fi.Mode()&os.ModeSymlink != 0 {
				warn("%s %s is a symlink to %s; the sandbox gets %s", r.Access, r.Path, r.Canon, r.Canon)
			}
		}
	}
	if n := LinkCount(r.Info); n > 1 && r.Info.Mode().IsRegular() && (r.Access == mounts.ReadOnly || r.Access == mounts.Deny) {
		// A rule protects a path; another name of the same file is
		// another path, which a writable rule may cover.
		warn("%s %s: the file has %d hard links; through another name in a writable path it can still be read and written", r.Access, r.Path, n)
	}
	return nil
}

// CheckGitShown refuses a writable directory shown at another place than
// its own under git's protection: the protection finds repositories and
// keeps their names where the host has them; shown elsewhere, they would
// be left unprotected.
func CheckGitShown(rules []Rule) error {
	for _, r := range rules {
		if r.Mapped() && r.Dir && (r.Access == mounts.ReadWrite || r.Access == mounts.Overlay) {
			return &Error{Kind: KindRule, Rule: &r, Err: errs.New("%s covers writable directories shown at their own place only: use %s", errs.ProtectGit, errs.RuleReadWrite.With(r.Host))}
		}
	}
	return nil
}

// CheckInput refuses what planning r would refuse first, before anything
// touches the host: git protection's writable directories shown elsewhere
// among user (the caller's rules, lowered), then for a sandbox with
// namespaces its root and its network.
func CheckInput(r *Request, user []Rule) error {
	if r.ProtectGit {
		if err := CheckGitShown(user); err != nil {
			return err
		}
	}
	if r.LandlockOnly {
		return nil
	}
	if _, _, err := FullRoot(r); err != nil {
		return err
	}
	return CheckNetwork(&r.Net)
}

// kernelSettingsFS names the filesystem of the host path p where it is a
// procfs or sysfs (their files change the kernel for whoever passes their
// modes: the host's root, in a sandbox of the host's root), or "".
func kernelSettingsFS(p string) string {
	var fs unix.Statfs_t
	if unix.Statfs(p, &fs) != nil {
		return ""
	}
	switch fs.Type {
	case unix.PROC_SUPER_MAGIC:
		return "procfs"
	case unix.SYSFS_MAGIC:
		return "sysfs"
	}
	return ""
}
