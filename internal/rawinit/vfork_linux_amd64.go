package rawinit

// canVfork: the payload is vforked from the init on a stack of its own
// (vfork_linux_amd64.s), not forked with a copy of the init's address space.
const canVfork = true

func vforkPayload(flags, stack, ptid uintptr, m *machine, pc uintptr) (pid, errno uintptr)

// canCloneVM: the init can be cloned with CLONE_VM onto a stack of its
// own (cloneVM, vfork_linux_amd64.s).
const canCloneVM = true

func cloneVM(args *cloneArgs, size uintptr, m *machine) (pid, errno uintptr)
