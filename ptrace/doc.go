// Package ptrace follows a sandbox's processes with ptrace(2) and reports
// each call of theirs that failed or that a seccomp filter refused: the
// account behind nsrun's --trace-denials.
//
// It only looks. A seccomp filter the caller builds from Calls stops a
// process at the calls that can be refused (SECCOMP_RET_TRACE with
// ObserveData); the tracer asks for that call's exit (PTRACE_SYSCALL),
// reads its result (PTRACE_GET_SYSCALL_INFO) and lets it go on, changed in
// nothing. The calls a filter refuses outright are trapped instead
// (SECCOMP_RET_TRAP with RefuseMark|errno, seccomp.Profile.Trapping): the
// kernel never runs them, whatever the tracer does, and the tracer turns
// the SIGSYS into the errno the rule names, which is what the thread would
// have got without tracing. A tracer that dies takes every process it
// follows with it (PTRACE_O_EXITKILL); a process with such a filter and no
// tracer gets ENOSYS for the observed calls and SIGSYS for the refused
// ones: nothing is ever let through for want of a tracer.
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
