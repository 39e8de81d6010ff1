package seccomp

// Errnos the default filter returns (Linux values, the same on every
// architecture nsrun supports).
const (
	errEPERM        = 1
	errENOSYS       = 38
	errEAFNOSUPPORT = 97
)

// Options changes the default filter.
type Options struct {
	// AllowUserns lets the payload create namespaces (clone, unshare and
	// setns with CLONE_NEW* flags), so it can run a nested sandbox.
	AllowUserns bool
}

// Namespace flags of clone(2) and unshare(2), one rule each.
var cloneNewFlags = []struct {
	name string
	bit  uint64
}{
	{"CLONE_NEWTIME", 0x80}, {"CLONE_NEWNS", 0x20000}, {"CLONE_NEWCGROUP", 0x2000000},
	{"CLONE_NEWUTS", 0x4000000}, {"CLONE_NEWIPC", 0x8000000}, {"CLONE_NEWUSER", 0x10000000},
	{"CLONE_NEWPID", 0x20000000}, {"CLONE_NEWNET", 0x40000000},
}

// personalityFlags are the flag bits of personality(2). Bit 31 is part of
// each mask so that the query personality(0xffffffff) still works.
var personalityFlags = []uint64{
	0x0020000, 0x0040000, 0x0080000, 0x0100000, 0x0200000, 0x0400000,
	0x0800000, 0x1000000, 0x2000000, 0x4000000, 0x8000000,
}

// allowedFamilies are the socket families a sandbox may use.
var allowedFamilies = map[uint64]bool{1: true, 2: true, 10: true, 16: true} // unix, inet, inet6, netlink

const (
	tiocsti   = 0x5412
	tioclinux = 0x541C
	low32     = 0xFFFFFFFF
	bit31     = 0x80000000
)

func eperm(reason string, names ...string) Rule {
	return Rule{Names: names, Action: Action{Kind: ActErrno, Errno: errEPERM}, Reason: reason}
}

func enosys(reason string, names ...string) Rule {
	return Rule{Names: names, Action: Action{Kind: ActErrno, Errno: errENOSYS}, Reason: reason}
}

// masked matches when the low 32 bits of argument i, under mask, equal
// value: the kernel reads these arguments as int, so high bits must not
// let a call past a rule (CVE-2019-10063).
func masked(i uint, mask, value uint64) Arg {
	return Arg{Index: i, Op: OpMaskedEq, Value: mask & low32, ValueTwo: value & low32}
}

// Default is nsrun's default filter: a denylist (everything not listed is
// allowed) of the calls that reach kernel state outside the sandbox, that
// bypass other layers, or that have a history of privilege escalation.
// Each rule carries its reason; ptrace stays allowed (debuggers inside the
// sandbox), since the PID namespace bounds it and the init reaps traced
// children with __WALL.
func Default(o Options) Profile {
	p := Profile{Name: "default", DefaultAction: Action{Kind: ActAllow}}
	add := func(r ...Rule) { p.Rules = append(p.Rules, r...) }

	add(
		eperm("kernel keyrings are not namespaced: keys of the host user would be reachable",
			"add_key", "request_key", "keyctl"),
		eperm("eBPF programs and perf events expose and change kernel state",
			"bpf", "perf_event_open", "lookup_dcookie"),
		eperm("userfaultfd stalls the kernel at will: a building block of kernel exploits",
			"userfaultfd"),
		eperm("io_uring runs operations no syscall filter or socket rule sees",
			"io_uring_setup", "io_uring_enter", "io_uring_register"),
		eperm("loading kernel modules or a new kernel",
			"init_module", "finit_module", "delete_module", "kexec_load", "kexec_file_load"),
		enosys("clone3 passes its flags in memory, where no filter can check them: libc falls back to clone",
			"clone3"),
		eperm("open_by_handle_at opens files by handle, around every path rule (the 'shocker' escape)",
			"open_by_handle_at"),
		eperm("the clock is the host's", "settimeofday", "clock_settime", "clock_adjtime"),
		eperm("host-wide or obsolete calls with no place in a sandbox",
			"reboot", "swapon", "swapoff", "acct", "quotactl", "quotactl_fd", "syslog", "vhangup",
			"iopl", "ioperm", "nfsservctl", "uselib", "ustat", "sysfs", "_sysctl", "fanotify_init",
			"lsm_set_self_attr"),
		eperm("NUMA placement of memory changes what other processes get",
			"mbind", "set_mempolicy", "migrate_pages", "move_pages", "set_mempolicy_home_node"),
		eperm("modify_ldt has a long history of kernel bugs and no modern use", "modify_ldt"),
	)
	if !o.AllowUserns {
		// With namespaces allowed, a nested sandbox mounts in its own mount
		// namespace, which only a user namespace of its own makes possible.
		add(
			eperm("mounts are the launcher's to make; the payload must not change its view",
				"mount", "umount2", "pivot_root", "chroot"),
			enosys("the new mount API, refused as if absent so tools fall back to mount(2), which is refused",
				"open_tree", "move_mount", "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr", "open_tree_attr"),
			eperm("setns joins namespaces; the sandbox must stay in its own", "setns"),
		)
		for _, f := range cloneNewFlags {
			reason := "new namespaces (" + f.name + "): a user namespace gives capabilities back"
			add(Rule{Names: []string{"unshare"}, Action: Action{Kind: ActErrno, Errno: errEPERM},
				Args: []Arg{masked(0, f.bit, f.bit)}, Reason: reason})
			add(Rule{Names: []string{"clone"}, Action: Action{Kind: ActErrno, Errno: errEPERM},
				Args: []Arg{masked(0, f.bit, f.bit)}, Reason: reason})
		}
	}
	for _, bit := range personalityFlags {
		add(Rule{Names: []string{"personality"}, Action: Action{Kind: ActErrno, Errno: errEPERM},
			Args:   []Arg{masked(0, bit|bit31, bit)},
			Reason: "personality flags turn off address space randomisation and other defences"})
	}
	for _, req := range []uint64{tiocsti, tioclinux} {
		add(Rule{Names: []string{"ioctl"}, Action: Action{Kind: ActErrno, Errno: errEPERM},
			Args:   []Arg{masked(1, low32, req)},
			Reason: "TIOCSTI and TIOCLINUX push input into a terminal the sandbox holds: the caller's, where the payload has no pseudo-terminal of its own (CVE-2017-5226)"})
	}
	afRule := func(args ...Arg) {
		for _, name := range []string{"socket", "socketpair"} {
			add(Rule{Names: []string{name}, Action: Action{Kind: ActErrno, Errno: errEAFNOSUPPORT}, Args: args,
				Reason: "socket families beyond unix, inet, inet6 and netlink (vsock, packet, alg...) reach the host or old code"})
		}
	}
	for fam := uint64(0); fam < 17; fam++ {
		if !allowedFamilies[fam] {
			afRule(masked(0, low32, fam))
		}
	}
	afRule(Arg{Index: 0, Op: OpGE, Value: 17})
	return p
}
