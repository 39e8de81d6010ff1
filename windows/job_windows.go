package windows

import (
	"fmt"
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
// object with KILL_ON_JOB_CLOSE and resumes it. stdio are inheritable
// handles for stdin, stdout and stderr.
func Start(token windows.Token, cmdline string, env []string, dir string, stdio [3]windows.Handle) (*Process, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return nil, fmt.Errorf("CreateJobObject: %w", err)
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{
		BasicLimitInformation: windows.JOBOBJECT_BASIC_LIMIT_INFORMATION{LimitFlags: windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE},
	}
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return nil, fmt.Errorf("SetInformationJobObject: %w", err)
	}
	for _, h := range stdio {
		if err := windows.SetHandleInformation(h, windows.HANDLE_FLAG_INHERIT, windows.HANDLE_FLAG_INHERIT); err != nil {
			windows.CloseHandle(job)
			return nil, fmt.Errorf("SetHandleInformation: %w", err)
		}
	}
	si := windows.StartupInfo{Flags: windows.STARTF_USESTDHANDLES, StdInput: stdio[0], StdOutput: stdio[1], StdErr: stdio[2]}
	si.Cb = uint32(unsafe.Sizeof(si))
	var pi windows.ProcessInformation
	cl, err := windows.UTF16PtrFromString(cmdline)
	if err != nil {
		windows.CloseHandle(job)
		return nil, err
	}
	var dirp *uint16
	if dir != "" {
		if dirp, err = windows.UTF16PtrFromString(dir); err != nil {
			windows.CloseHandle(job)
			return nil, err
		}
	}
	block := envBlock(env)
	flags := uint32(windows.CREATE_SUSPENDED | windows.CREATE_UNICODE_ENVIRONMENT)
	if err := windows.CreateProcessAsUser(token, nil, cl, nil, nil, true, flags, &block[0], dirp, &si, &pi); err != nil {
		windows.CloseHandle(job)
		return nil, fmt.Errorf("CreateProcessAsUser: %w", err)
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
