// Package rawinit is the sandbox init that runs without a Go runtime
// (issue 27), the default for every spec it supports (internal/sandbox
// starts it; NSRUN_INIT=go chooses the Go init, the reference): the parent compiles a finished launch.Spec into a
// flat list of operations, each a raw system call with its arguments
// computed beforehand, clones a child into the new namespaces, and the
// child runs that list with raw system calls only. Nothing is re-executed:
// no second Go runtime starts and no package is initialized for the init.
//
// What it guarantees: the child code allocates nothing, never grows its
// stack, takes no lock and writes no pointer (every function it runs is
// //go:nosplit and //go:norace, and the linker checks the nosplit chain);
// every operation that fails is reported by its step and errno on the
// status pipe, in launch.Msg terms, and the sandbox is not run.
//
// What it covers, and what it refuses (Compile says which, by name): the
// mounts of a plan made of the root bind, binds, tmpfs, /dev, procfs,
// sysfs, denied files and files of the sandbox's own (bound read-only
// from a scratch tmpfs the first of them makes, as package mounts does;
// a file's content is data of the program, written in one write that
// must write it all); pivot_root; lo up; the hostname; rlimits; Landlock
// (paths, ports, scopes); the capability drop and NO_NEW_PRIVS; seccomp filters that do
// not notify; then, as pid 1, the payload's clone and exec (searching PATH
// as the Go init's lookPath does: an entry that cannot be searched is
// passed over, a copy that may not be executed remembered, 126 only when
// nothing executable was found), signal forwarding, reaping and the exit status with
// the usage of everything reaped. The filtered network: lo's addresses
// (RTM_NEWADDR messages computed beforehand; one the kernel refuses is
// logged, as the Go init logs it) and netproxy's socket factory on
// launch.NetSockFD, which pid 1 serves after its own lockdown until nsrun
// says ready (before the payload, as the Go init waits), then from its
// supervise loop for the sandbox's life; the factory's descriptor is
// close-on-exec, never the payload's. Pid 1 serves it under the filters it
// loaded (the Go init serves from a thread of its own): a filter that
// refuses a call of the factory (Supports asks package seccomp's
// interpreter) gets the Go init. On amd64 the payload is vforked
// (CLONE_VM|CLONE_VFORK) onto a stack of its own by a few lines of Go
// assembly, so that its clone copies nothing; NSRUN_RAW_FORK=1, and other
// architectures, fork it with a copy of the init's address space.
//
// It refuses a pty, ExtraFiles,
// seccomp listeners, a session, the payload as pid 1, kept capabilities,
// an argv[0] of its own, overlays, mirrors, pins, a file of the sandbox's
// own after an optional one (package mounts names the files in the order
// it makes them, and one whose mount point is missing is not made: the
// program's names are fixed), the remount path for kernels without
// mount_setattr, and the Landlock-only supervisor (which must run Go code
// for the payload's whole life and stays a Go stage).
//
// The Landlock-only stage's child is built from the same parts
// (CompileLandlockChild): cloned from the stage's outer-domain thread
// without exec, it does what launch.RunLandlockChild does, in its order,
// and sends the notifying filter's listener to the stage by SCM_RIGHTS; a
// failure goes to the stage as its errno and step, which the stage words
// as the Go child does. It refuses a pty (the Go child takes the
// terminal's foreground) and the tracer (--trace-denials), for which the
// stage starts the Go child, and says why under -v.
//
// What it cannot do, as a clone without exec: its memory is a copy of the
// parent's, the caller's heap and environment included (only the argv and
// environment areas are overwritten). Like the Go init it is made
// non-dumpable after the mounts and the payload holds no capability, so
// nothing in the sandbox can read it; but what the Go init never held (the
// variables the policy kept from the payload) is there. Its fork copies
// the parent's page tables, which grows with the parent's heap: past the
// fork helper's threshold internal/sandbox gives the spec to the Go init.
// Attr.ShareMemory (amd64) clones it with CLONE_VM instead, sharing the
// caller's memory: nothing is copied, however large the caller's heap;
// CanShareMemory says what that costs (pid 1 keeps a capability instead
// of being non-dumpable, hidden from the payload's /proc, and dumps no
// core), which is why the caller must ask for it.
//
// The soft RLIMIT_NOFILE the caller started with, which the Go runtime
// raises for itself and restores only in the processes it execs (the Go
// init's payload gets it that way), is read before the runtime raised it
// (package nofile, initialized before syscall) and restored in the
// payload under the same condition as Go's exec: the spec sets no nofile,
// and the limit is still the one Go set.
//
// Where openat2 is refused with ENOSYS (a kernel before 5.6, or a nested
// sandbox, whose filter cannot read its arguments), paths are opened one
// component at a time, each refused if a symlink, as package mounts does.
//
// Kernel minimums: those of the Go init it stands in for, plus clone3
// (5.3) and close_range with CLOSE_RANGE_CLOEXEC (5.11); mount_setattr
// (5.12) is required, not worked around: without it (HostSupports)
// internal/sandbox gives the spec to the Go init.
//
// Linux on amd64 and arm64 only (the raw system calls and the layouts of
// the structures it fills).
package rawinit
