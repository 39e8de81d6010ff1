// Package ptrace follows a sandbox's processes with ptrace(2) and reports
// each call of theirs that failed or that a seccomp filter refused: the
// account behind nsrun's --trace-denials.
//
// It refuses what the sandbox refuses and otherwise only looks. A seccomp
// filter the caller builds from Calls stops a process at the calls that
// can be refused (SECCOMP_RET_TRACE with ObserveData); the tracer asks for
// that call's exit (PTRACE_SYSCALL), reads its result
// (PTRACE_GET_SYSCALL_INFO) and lets it go on, changed in nothing. The
// sandbox's own filters are loaded with their errnos made traces
// (seccomp.Traced): at each such stop the tracer runs the untraced filters
// on the call itself (Options.Refused) and, where they refuse it, records
// it and makes it fail with their errno without running it (the call
// number -1), which is what the thread would have got without tracing. No
// signal is involved: the payload's own signals, handlers and masks are
// left as they are. A trace stop neither the sandbox's filters nor the
// observing one explain comes from a filter the payload loaded: the call
// fails with ENOSYS, as it does untraced. A tracer that dies takes every
// process it follows with it (PTRACE_O_EXITKILL), a tracer that cannot
// set a refused call's registers kills its process, and a process with
// such filters and no tracer gets ENOSYS for every traced call: nothing
// is ever let through for want of a tracer.
//
// The tracer runs on a thread of its own in the calling program, outside
// the sandbox's namespaces and Landlock domain: nothing in the sandbox can
// signal, trace or reach it, and what it reads (a path in the tracee's
// memory, its working directory) can change what is reported, never what
// is allowed. It follows the process it seized and everything that starts
// from it, and reaps that process (Tracer.Ended): no other thread of the
// calling program may wait for it meanwhile. The process seized may be a
// PID namespace's init (Options.Ignore): its own calls are not reported,
// and the stop signals such an init ignores stay ignored though the
// kernel shows them to its tracer.
//
// Kernel minimum: 5.3 (PTRACE_GET_SYSCALL_INFO). What it cannot do: a
// process traced here cannot trace or be traced by another (gdb and
// strace in the sandbox fail with EPERM); calls neither in Calls nor
// refused by a filter (stat, access, sendmsg) are not seen; paths are
// joined to the working directory or descriptor they are relative to, not
// resolved through symlinks.
package ptrace
