package windows

import (
	"fmt"
	"runtime"
	"time"
	"unicode/utf16"
	"unsafe"

	"golang.org/x/sys/windows"
)

// Process is a payload started suspended, put in a job that ends it with
// nsrun, and resumed.
type Process struct {
	Handle windows.Handle
	Job    windows.Handle
	Pid    uint32
}

// Start creates the process with token, suspended, assigns it to a job
// object with KILL_ON_JOB_CLOSE and resumes it. stdio are the caller's
// handles for stdin, stdout and stderr: they stay as they are (never made
// inheritable); the payload gets inheritable copies of them, and no other
// handle of this process (see PlanStd).
func Start(token windows.Token, cmdline string, env []string, dir string, stdio [3]windows.Handle) (*Process, error) {
	cl, err := windows.UTF16PtrFromString(cmdline)
	if err != nil {
		return nil, err
	}
	var dirp *uint16
	if dir != "" {
		if dirp, err = windows.UTF16PtrFromString(dir); err != nil {
			return nil, err
		}
	}
	job, err := newKillJob()
	if err != nil {
		return nil, err
	}
	pi, err := createSuspended(token, cl, envBlock(env), dirp, stdio)
	if err != nil {
		windows.CloseHandle(job)
		return nil, err
	}
	defer windows.CloseHandle(pi.Thread)
	if err := windows.AssignProcessToJobObject(job, pi.Process); err != nil {
		windows.TerminateProcess(pi.Process, 1)
		windows.CloseHandle(pi.Process)
		windows.CloseHandle(job)
		return nil, fmt.Errorf("AssignProcessToJobObject: %w", err)
	}
	if _, err := windows.ResumeThread(pi.Thread); err != nil {
		windows.TerminateJobObject(job, 1)
		windows.CloseHandle(pi.Process)
		windows.CloseHandle(job)
		return nil, fmt.Errorf("ResumeThread: %w", err)
	}
	return &Process{Handle: pi.Process, Job: job, Pid: pi.ProcessId}, nil
}

// createSuspended creates the process with token, suspended, inheriting
// inheritable copies of stdio and nothing else: the copies are listed in
// PROC_THREAD_ATTRIBUTE_HANDLE_LIST (as syscall.StartProcess does), so an
// inheritable handle another part of this process holds does not leak
// into the sandbox, and they are closed once the process has its own.
func createSuspended(token windows.Token, cmdline *uint16, env []uint16, dir *uint16, stdio [3]windows.Handle) (*windows.ProcessInformation, error) {
	plan := PlanStd([3]uintptr{uintptr(stdio[0]), uintptr(stdio[1]), uintptr(stdio[2])})
	self := windows.CurrentProcess()
	dups := make([]windows.Handle, 0, len(plan.Dup))
	defer func() {
		for _, h := range dups {
			windows.CloseHandle(h)
		}
	}()
	for _, h := range plan.Dup {
		var dup windows.Handle
		if err := windows.DuplicateHandle(self, windows.Handle(h), self, &dup, 0, true, windows.DUPLICATE_SAME_ACCESS); err != nil {
			return nil, fmt.Errorf("DuplicateHandle: %w", err)
		}
		dups = append(dups, dup)
	}
	attrs, err := windows.NewProcThreadAttributeList(1)
	if err != nil {
		return nil, fmt.Errorf("InitializeProcThreadAttributeList: %w", err)
	}
	defer attrs.Delete()
	inherit := len(dups) > 0
	if inherit {
		if err := attrs.Update(windows.PROC_THREAD_ATTRIBUTE_HANDLE_LIST, unsafe.Pointer(&dups[0]), uintptr(len(dups))*unsafe.Sizeof(dups[0])); err != nil {
			return nil, fmt.Errorf("UpdateProcThreadAttribute: %w", err)
		}
	}
	si := windows.StartupInfoEx{ProcThreadAttributeList: attrs.List()}
	si.Cb = uint32(unsafe.Sizeof(si))
	si.Flags = windows.STARTF_USESTDHANDLES
	std := func(i int) windows.Handle {
		if plan.Slot[i] < 0 {
			return 0
		}
		return dups[plan.Slot[i]]
	}
	si.StdInput, si.StdOutput, si.StdErr = std(0), std(1), std(2)
	flags := uint32(windows.CREATE_SUSPENDED | windows.CREATE_UNICODE_ENVIRONMENT | windows.EXTENDED_STARTUPINFO_PRESENT)
	var pi windows.ProcessInformation
	err = windows.CreateProcessAsUser(token, nil, cmdline, nil, nil, inherit, flags, &env[0], dir, &si.StartupInfo, &pi)
	// The list points at dups: they must outlive the call.
	runtime.KeepAlive(dups)
	if err != nil {
		return nil, fmt.Errorf("CreateProcessAsUser: %w", err)
	}
	return &pi, nil
}

// Wait waits for the process and returns its exit code.
func (p *Process) Wait() (uint32, error) {
	if _, err := windows.WaitForSingleObject(p.Handle, windows.INFINITE); err != nil {
		return 0, fmt.Errorf("WaitForSingleObject: %w", err)
	}
	var code uint32
	if err := windows.GetExitCodeProcess(p.Handle, &code); err != nil {
		return 0, fmt.Errorf("GetExitCodeProcess: %w", err)
	}
	return code, nil
}

// basicAccounting is JOBOBJECT_BASIC_ACCOUNTING_INFORMATION; times are in
// units of 100 ns.
type basicAccounting struct {
	TotalUserTime, TotalKernelTime                       int64
	ThisPeriodTotalUserTime, ThisPeriodTotalKernelTime   int64
	TotalPageFaultCount, TotalProcesses, ActiveProcesses uint32
	TotalTerminatedProcesses                             uint32
}

// Usage is what every process of the job used: CPU time in user and
// kernel mode, and the most memory committed by them all at once.
func (p *Process) Usage() (user, kernel time.Duration, peakBytes uint64, err error) {
	var acct basicAccounting
	if err := windows.QueryInformationJobObject(p.Job, windows.JobObjectBasicAccountingInformation,
		uintptr(unsafe.Pointer(&acct)), uint32(unsafe.Sizeof(acct)), nil); err != nil {
		return 0, 0, 0, fmt.Errorf("QueryInformationJobObject: %w", err)
	}
	var ext windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION
	if err := windows.QueryInformationJobObject(p.Job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&ext)), uint32(unsafe.Sizeof(ext)), nil); err != nil {
		return 0, 0, 0, fmt.Errorf("QueryInformationJobObject: %w", err)
	}
	return time.Duration(acct.TotalUserTime) * 100, time.Duration(acct.TotalKernelTime) * 100, uint64(ext.PeakJobMemoryUsed), nil
}

// Kill ends the job: the payload and everything it started.
func (p *Process) Kill() error { return windows.TerminateJobObject(p.Job, 1) }

// Close releases the handles; closing the job kills what is left in it.
func (p *Process) Close() {
	windows.CloseHandle(p.Handle)
	windows.CloseHandle(p.Job)
}

// envBlock is env as a Windows environment block: UTF-16, each entry NUL
// terminated, one more NUL at the end.
func envBlock(env []string) []uint16 {
	var b []uint16
	for _, kv := range env {
		b = append(b, utf16.Encode([]rune(kv))...)
		b = append(b, 0)
	}
	if len(b) == 0 {
		b = append(b, 0)
	}
	return append(b, 0)
}
