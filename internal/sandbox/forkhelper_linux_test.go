package sandbox

import (
	"github.com/nsrun/nsrun/internal/launch"
	"os"
	"reflect"
	"syscall"
	"testing"
)

// The helper gets the init's descriptors (nothing at 5 without a pty, at 6
// without a filtered network), then its request and result pipes, then the
// cgroup, then the init's ExtraFiles (which come after 6 in the init's
// list too), which the request places; the request carries what the
// init's fork needs;
// the helper itself is forked plainly (so it is vforked), in our process
// group, and dies with us.
func TestHelperAttr(t *testing.T) {
	req, res, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer closeFiles(req, res)
	rq, rs := req.Fd(), res.Fd()
	const N = ^uintptr(0) // no descriptor there
	maps := []syscall.SysProcIDMap{{ContainerID: 0, HostID: 1000, Size: 1}}
	for _, tc := range []struct {
		name      string
		sys       syscall.SysProcAttr
		initFiles []uintptr
		extra     int
		wantFiles []uintptr
		want      launch.ForkRequest
	}{
		{"no cgroup", syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWUSER | syscall.CLONE_NEWPID, UidMappings: maps, GidMappings: maps, Setsid: true},
			[]uintptr{0, 1, 2, 7, 8}, 0, []uintptr{0, 1, 2, 7, 8, N, N, rq, rs},
			launch.ForkRequest{Cloneflags: syscall.CLONE_NEWUSER | syscall.CLONE_NEWPID, UIDs: maps, GIDs: maps, Setsid: true}},
		{"born in a cgroup", syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWUSER, UseCgroupFD: true, CgroupFD: 9},
			[]uintptr{0, 1, 2, 7, 8}, 0, []uintptr{0, 1, 2, 7, 8, N, N, rq, rs, 9},
			launch.ForkRequest{Cloneflags: syscall.CLONE_NEWUSER, Cgroup: true}},
		{"with a pty", syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWUSER, Setsid: true},
			[]uintptr{0, 1, 2, 7, 8, 11}, 0, []uintptr{0, 1, 2, 7, 8, 11, N, rq, rs},
			launch.ForkRequest{Cloneflags: syscall.CLONE_NEWUSER, Setsid: true, TTY: true}},
		{"a filtered network", syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWUSER, UseCgroupFD: true, CgroupFD: 9},
			[]uintptr{0, 1, 2, 7, 8, N, 10}, 0, []uintptr{0, 1, 2, 7, 8, N, 10, rq, rs, 9},
			launch.ForkRequest{Cloneflags: syscall.CLONE_NEWUSER, Cgroup: true, Net: true}},
		{"a pty and a filtered network", syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWUSER},
			[]uintptr{0, 1, 2, 7, 8, 11, 10}, 0, []uintptr{0, 1, 2, 7, 8, 11, 10, rq, rs},
			launch.ForkRequest{Cloneflags: syscall.CLONE_NEWUSER, TTY: true, Net: true}},
		{"extra files", syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWUSER, UseCgroupFD: true, CgroupFD: 9},
			[]uintptr{0, 1, 2, 7, 8, N, N, 20, 21}, 2, []uintptr{0, 1, 2, 7, 8, N, N, rq, rs, 9, 20, 21},
			launch.ForkRequest{Cloneflags: syscall.CLONE_NEWUSER, Cgroup: true, Extra: []int{10, 11}}},
		{"extra files, a pty and a filtered network", syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWUSER},
			[]uintptr{0, 1, 2, 7, 8, 11, 10, 20}, 1, []uintptr{0, 1, 2, 7, 8, 11, 10, rq, rs, 20},
			launch.ForkRequest{Cloneflags: syscall.CLONE_NEWUSER, TTY: true, Net: true, Extra: []int{9}}},
	} {
		init := &syscall.ProcAttr{Files: append([]uintptr{}, tc.initFiles...), Sys: &tc.sys}
		attr, got := helperAttr(init, req, res, tc.extra)
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
		if !reflect.DeepEqual(init.Files, tc.initFiles) {
			t.Errorf("%s: the init's descriptors were changed: %v", tc.name, init.Files)
		}
	}
}

// TestExtraFilePlaces: the ExtraFiles go after the fixed descriptors, and
// every number up to the payload's highest (3+len) is taken in the child,
// by a copy of its stdin where nothing else is, so that the Go runtime's
// own descriptors there lie above them (a payload executed in the init's
// place takes its descriptors at those numbers).
func TestExtraFilePlaces(t *testing.T) {
	none := ^uintptr(0)
	a, b := os.NewFile(100, "a"), os.NewFile(101, "b")
	fixed := []uintptr{10, 11, 12, 13, 14}
	files, at, trailing := extraFilePlaces(append([]uintptr{}, fixed...), []*os.File{a, nil, nil, nil, nil, nil, b}, 7)
	want := []uintptr{10, 11, 12, 13, 14, 10, 10, 100, 101, 10}
	if !reflect.DeepEqual(files, want) || !reflect.DeepEqual(at, []int{7, -1, -1, -1, -1, -1, 8}) || trailing != 3 {
		t.Errorf("got %v at %v trailing %d; want %v at [7 -1 ... 8] trailing 3", files, at, trailing, want)
	}
	files, at, trailing = extraFilePlaces([]uintptr{10, 11, 12, 13, 14, none, 16}, []*os.File{a}, 7)
	if !reflect.DeepEqual(files, []uintptr{10, 11, 12, 13, 14, 10, 16, 100}) || !reflect.DeepEqual(at, []int{7}) || trailing != 1 {
		t.Errorf("got %v at %v trailing %d", files, at, trailing)
	}
	files, at, trailing = extraFilePlaces(append([]uintptr{}, fixed...), nil, 7)
	if !reflect.DeepEqual(files, fixed) || at != nil || trailing != 0 {
		t.Errorf("no ExtraFiles: got %v at %v trailing %d", files, at, trailing)
	}
}
