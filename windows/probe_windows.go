package windows

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/windows"
)

// CheckHost tries what a sandbox needs, undoing each: a restricted token
// with the sandbox's flags and restricting SIDs, a job object that kills
// its processes when closed, and the directory of the ACE journals.
func CheckHost() []Check {
	return []Check{
		{"restricted token", checkToken()},
		{"job object", checkJob()},
		{"ACE journal directory", checkJournalDir()},
	}
}

func checkToken() error {
	s, err := NewSession()
	if err != nil {
		return err
	}
	plan, err := MakePlan(Input{})
	if err != nil {
		return err
	}
	token, err := s.Token(plan)
	if err != nil {
		return err
	}
	return token.Close()
}

func checkJob() error {
	job, err := newKillJob()
	if err != nil {
		return err
	}
	return windows.CloseHandle(job)
}

func checkJournalDir() error {
	_, err := JournalDir()
	return err
}

// newKillJob makes a job object that kills its processes when its last
// handle is closed.
func newKillJob() (windows.Handle, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return 0, fmt.Errorf("CreateJobObject: %w", err)
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{
		BasicLimitInformation: windows.JOBOBJECT_BASIC_LIMIT_INFORMATION{LimitFlags: windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE},
	}
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return 0, fmt.Errorf("SetInformationJobObject: %w", err)
	}
	return job, nil
}
