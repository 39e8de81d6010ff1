package bwrap

// Host is what Check needs to know of the caller.
type Host struct {
	UID, GID int
	// UsernsDisabled says the kernel makes no user namespace at all (its
	// max_user_namespaces is 0), which turns --unshare-user-try off.
	UsernsDisabled bool
}

// Check makes bubblewrap's checks of a parsed line, in bubblewrap's order,
// for a caller h, and returns the namespaces as bubblewrap settles them:
// a user namespace is implied for a caller other than root (without
// --userns), and by --unshare-user-try where the kernel allows one. No
// command is ErrUsage.
func (a *Args) Check(h Host) (Namespaces, error) {
	ns := a.Unshare
	switch {
	case a.UsernsBlockFD != -1 && !ns.User:
		return ns, errorf("--userns-block-fd requires --unshare-user")
	case a.UsernsBlockFD != -1 && a.InfoFD == -1:
		return ns, errorf("--userns-block-fd requires --info-fd")
	case a.UsernsFD != -1 && ns.User:
		return ns, errorf("--userns is not compatible with --unshare-user")
	case a.UsernsFD != -1 && ns.UserTry:
		return ns, errorf("--userns is not compatible with --unshare-user-try")
	case a.DisableUserns && !ns.User:
		return ns, errorf("--disable-userns requires --unshare-user")
	case a.DisableUserns && a.UsernsBlockFD != -1:
		return ns, errorf("--disable-userns is not compatible with --userns-block-fd")
	}
	if h.UID != 0 && a.UsernsFD == -1 {
		ns.User = true
	}
	if ns.UserTry && !h.UsernsDisabled {
		ns.User = true
	}
	if len(a.Command) == 0 {
		return ns, ErrUsage
	}
	noUserns := !ns.User && a.UsernsFD == -1
	switch {
	case noUserns && a.UID != -1 && a.UID != h.UID:
		return ns, errorf("Specifying --uid requires --unshare-user or --userns")
	case noUserns && a.GID != -1 && a.GID != h.GID:
		return ns, errorf("Specifying --gid requires --unshare-user or --userns")
	case !ns.UTS && a.HostnameSet:
		return ns, errorf("Specifying --hostname requires --unshare-uts")
	case a.AsPid1 && !ns.PID:
		return ns, errorf("Specifying --as-pid-1 requires --unshare-pid")
	case a.AsPid1 && len(a.LockFiles) > 0:
		return ns, errorf("Specifying --as-pid-1 and --lock-file is not permitted")
	}
	return ns, nil
}
