//go:build linux && !amd64

package rawinit

// canVfork: elsewhere the payload is forked (clone without CLONE_VM).
const canVfork = false

func vforkPayload(flags, stack, ptid uintptr, m *machine, pc uintptr) (pid, errno uintptr) {
	return 0, uintptr(38) // ENOSYS: never called
}

// canCloneVM: elsewhere the init is cloned with a copy of the address space.
const canCloneVM = false

func cloneVM(args *cloneArgs, size uintptr, m *machine) (pid, errno uintptr) {
	return 0, uintptr(38) // ENOSYS: never called
}
