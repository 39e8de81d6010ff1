package sandbox

import (
	"github.com/nsrun/nsrun/internal/launch"
)

// usageReport is what the whole sandbox used. The init's accounting of
// all it reaped counts every process (an init killed before it could say
// leaves the kernel's accounting of the init and everything it reaped, the
// init included; the Landlock-only payload's is of the payload and what it
// reaped). Where nsrun made a cgroup, it counts instead: the CPU time
// where it accounts for it, and the memory peak of all the sandbox's
// processes together where it has the memory controller.
func (s *Sandbox) usageReport() Usage {
	_, ended := s.waitStatus()
	u := Usage{WallMS: ms(ended.Sub(s.running)), Source: "rusage"}
	if s.usage != nil {
		u.UserMS, u.SystemMS, u.MaxRSSKiB = float64(s.usage.UserUS)/1000, float64(s.usage.SystemUS)/1000, s.usage.MaxRSSKiB
	} else {
		u.UserMS, u.SystemMS = float64(launch.TVMicros(s.rusage.Utime))/1000, float64(launch.TVMicros(s.rusage.Stime))/1000
		u.MaxRSSKiB = s.rusage.Maxrss
	}
	if s.cgroup == nil {
		return u
	}
	cu := s.cgroup.Usage()
	if cu.CPU {
		u.UserMS, u.SystemMS = float64(cu.UserUS)/1000, float64(cu.SystemUS)/1000
	}
	if cu.Memory {
		u.MaxRSSKiB, u.Source = (cu.PeakBytes+1023)/1024, "cgroup"
	}
	return u
}
