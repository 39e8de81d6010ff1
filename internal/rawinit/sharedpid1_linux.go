package rawinit

import (
	"encoding/binary"
	"fmt"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/internal/launch"
)

// sharedPid1: an init cloned with CLONE_VM (Input.VM) shares the caller's
// memory for the sandbox's whole life, and the payload runs with its user
// ids. What keeps the payload from that memory through pid 1:
//
// A capability the payload lacks. ptrace, process_vm_readv/writev,
// /proc/1/mem, pidfd_getfd and the rest check the kernel's
// cap_ptrace_access_check: a tracer in pid 1's user namespace whose
// capabilities do not cover pid 1's permitted set needs CAP_SYS_PTRACE.
// Pid 1 keeps keptCap, permitted but not effective, and empties the
// bounding set, the inheritable and the ambient sets, so the payload's
// exec leaves it nothing, and it cannot get keptCap back. The init cannot
// be made non-dumpable for that, as the copy is: the flag belongs to the
// address space, so the caller would be non-dumpable as well (no core
// dumps, debuggers refused) and, its /proc files root's from then on, no
// caller but root could write a later sandbox's id maps.
//
// /proc/1 hidden: some of pid 1's /proc files need no ptrace access but
// their owner's, which the payload is (dumpable, pid 1's are its user's):
// oom_score_adj (the kernel keeps one for every process sharing the
// memory, the caller's included), clear_refs, coredump_filter, and
// cmdline (the caller's argv). The sandbox's procfs is mounted with
// hidepid=ptraceable: only who may ptrace pid 1 sees it, no one in the
// sandbox.
//
// No core: a dumpable pid 1 killed by a signal that dumps core would
// write the caller's memory into its working directory, the sandbox's.
// Its RLIMIT_CORE is 0, soft and hard (the payload may set pid 1's
// limits, same user, but can raise no hard one), from its first step.
// The payload, vforked, shares that memory until its exec and is not pid
// 1: a same-user process that can signal it could make it dump core in
// that window, with the payload's own limit. So only a payload that may
// dump no core shares the memory (NoShareWhy): the spec's core limit is
// 0 hard, as nsrun's is unless asked otherwise.

// keptCap is the capability pid 1 keeps: one that grants nothing in a
// user namespace other than the initial one.
const (
	keptCap     = unix.CAP_AUDIT_READ
	keptCapName = "CAP_AUDIT_READ"
)

// keptCapData is capset's two struct __user_cap_data_struct (effective,
// permitted, inheritable; low and high 32 bits) with keptCap permitted.
func keptCapData() []byte {
	d := make([]byte, 24)
	binary.NativeEndian.PutUint32(d[12*(keptCap/32)+4:], 1<<(keptCap%32))
	return d
}

// NoShareWhy says why an init for spec may not share the caller's
// memory, or "": its payload, which shares it until its exec, may dump
// core (sharedPid1).
func NoShareWhy(spec *launch.Spec) string {
	for _, r := range spec.Rlimits {
		if r.Name == "core" {
			if r.Hard == 0 {
				return ""
			}
			return fmt.Sprintf("the payload, which shares it until its exec, may dump core: RLIMIT_CORE %d:%d", r.Soft, r.Hard)
		}
	}
	return "the payload, which shares it until its exec, keeps this process's RLIMIT_CORE: no core limit is set"
}

// noCore sets this process's RLIMIT_CORE to 0, soft and hard.
func (b *builder) noCore() {
	b.begin("RLIMIT_CORE 0:0 for pid 1, which shares the caller's memory")
	b.sys(unix.SYS_PRLIMIT64, imm(0), imm(unix.RLIMIT_CORE), b.data("no core", make([]byte, 16)), imm(0))
}
