package rawinit

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/ns"
)

// The pidfd Start hands back is the init's, whenever the goroutine's stack
// moves: the kernel writes it where clone's arguments point, after the
// calls into the clone, and a stack copied (grown, or shrunk by the
// collector at a call's preemption check) in between left the old address
// there, the pidfd leaked and PidFD -1. Run with
// -gcflags=github.com/nsrun/nsrun/internal/rawinit=-d=maymorestack=runtime.mayMoreStackMove
// every call moves the stack; without, a collector running throughout
// shrinks it at times.
func TestPidfdIsTheInits(t *testing.T) {
	needSandboxes(t)
	// Not under /tmp, which the spec mounts a tmpfs on.
	ws, err := os.MkdirTemp("/var/tmp", "rawinit-ws-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(ws)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			select {
			case <-stop:
				return
			default:
				runtime.GC()
			}
		}
	}()
	uids, gids := idMaps()
	for i := range 20 {
		p := newPipes(t)
		pidfd := -1
		started := make(chan error, 1)
		var init *Init
		go func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			var err error
			init, err = Start(baseSpec(t, ws, "true"), &Attr{Files: p.files(), Cloneflags: ns.CloneFlags(false), Setsid: true,
				UIDs: uids, GIDs: gids, PidFD: &pidfd})
			started <- err
		}()
		err := <-started
		p.closeChildEnds()
		if err != nil {
			t.Fatalf("start the raw init: %v", err)
		}
		info, ferr := os.ReadFile(fmt.Sprintf("/proc/self/fdinfo/%d", pidfd))
		o := p.follow(init.Status(p.statusR), func() string {
			var ws unix.WaitStatus
			_, _ = unix.Wait4(init.Pid, &ws, 0, nil)
			return describe(ws)
		})
		if pidfd >= 0 {
			unix.Close(pidfd)
		}
		if ferr != nil || !strings.Contains(string(info), fmt.Sprintf("\nPid:\t%d\n", init.Pid)) {
			t.Fatalf("start %d: PidFD %d is not the init's (pid %d): %v %q", i, pidfd, init.Pid, ferr, info)
		}
		if o.init != "exit 0" {
			t.Fatalf("start %d: the init ended with %s: %+v", i, o.init, o)
		}
	}
}
