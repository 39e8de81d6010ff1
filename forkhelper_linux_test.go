package nsrun

import (
	"os"
	"reflect"
	"syscall"
	"testing"
)

// The helper gets the init's descriptors, then its request and result
// pipes, then the cgroup; the request carries what the init's fork needs;
// the helper itself is forked plainly (so it is vforked), in our process
// group, and dies with us.
func TestHelperAttr(t *testing.T) {
	req, res, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer closeFiles(req, res)
	rq, rs := req.Fd(), res.Fd()
	maps := []syscall.SysProcIDMap{{ContainerID: 0, HostID: 1000, Size: 1}}
	for _, tc := range []struct {
		name      string
		sys       syscall.SysProcAttr
		net       bool // the init gets a network socket as its sixth descriptor
		wantFiles []uintptr
		want      forkRequest
	}{
		{"no cgroup", syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWUSER | syscall.CLONE_NEWPID, UidMappings: maps, GidMappings: maps, Setsid: true}, false,
			[]uintptr{0, 1, 2, 7, 8, rq, rs},
			forkRequest{Cloneflags: syscall.CLONE_NEWUSER | syscall.CLONE_NEWPID, UIDs: maps, GIDs: maps, Setsid: true, NetFD: -1}},
		{"born in a cgroup", syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWUSER, UseCgroupFD: true, CgroupFD: 9}, false,
			[]uintptr{0, 1, 2, 7, 8, rq, rs, 9},
			forkRequest{Cloneflags: syscall.CLONE_NEWUSER, Cgroup: true, NetFD: -1}},
		{"a filtered network, after the cgroup", syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWUSER, UseCgroupFD: true, CgroupFD: 9}, true,
			[]uintptr{0, 1, 2, 7, 8, rq, rs, 9, 10},
			forkRequest{Cloneflags: syscall.CLONE_NEWUSER, Cgroup: true, NetFD: 8}},
		{"a filtered network", syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWUSER}, true,
			[]uintptr{0, 1, 2, 7, 8, rq, rs, 10},
			forkRequest{Cloneflags: syscall.CLONE_NEWUSER, NetFD: 7}},
	} {
		init := &syscall.ProcAttr{Files: []uintptr{0, 1, 2, 7, 8}, Sys: &tc.sys}
		if tc.net {
			init.Files = append(init.Files, 10)
		}
		attr, got := helperAttr(init, req, res)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: request %+v, want %+v", tc.name, got, tc.want)
		}
		if !reflect.DeepEqual(attr.Files, tc.wantFiles) {
			t.Errorf("%s: files %v, want %v", tc.name, attr.Files, tc.wantFiles)
		}
		if attr.Sys.Cloneflags != 0 || attr.Sys.UidMappings != nil || attr.Sys.Setsid || attr.Sys.UseCgroupFD ||
			attr.Sys.Setpgid || attr.Sys.Pdeathsig != syscall.SIGKILL {
			t.Errorf("%s: the helper's own attributes %+v", tc.name, attr.Sys)
		}
		if len(init.Files) != 5 && !tc.net {
			t.Errorf("%s: the init's descriptors were changed: %v", tc.name, init.Files)
		}
	}
	if helperRequestFD != 5 || helperResultFD != 6 || helperCgroupFD != 7 {
		t.Error("the helper's descriptors follow the init's five")
	}
}
