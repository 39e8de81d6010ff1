package ptrace

import (
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/nsrun/nsrun/internal/procfs"
)

// churnEnv makes the test binary a process that starts and ends threads
// without pause (each goroutine below ends locked to its thread, which
// dies with it), until it is killed.
const churnEnv = "NSRUN_PTRACE_TEST_CHURN"

func TestMain(m *testing.M) {
	if os.Getenv(churnEnv) == "1" {
		for i := 0; i < 8; i++ {
			go func() {
				for {
					done := make(chan struct{})
					go func() {
						runtime.LockOSThread()
						close(done)
					}()
					<-done
				}
			}()
		}
		select {}
	}
	os.Exit(m.Run())
}

// Seize leaves no thread of the process untraced, even one that a thread
// was cloning while it was seized: a process forked later from such a
// thread would be untraced, and its traced calls fail with ENOSYS.
func TestSeizeLeavesNoThreadUntraced(t *testing.T) {
	for round := 0; round < 20; round++ {
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), churnEnv+"=1")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		pid := cmd.Process.Pid
		time.Sleep(20 * time.Millisecond) // churning by now
		tr, err := Seize(pid, Options{})
		if err != nil {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("seize: %v", err)
		}
		untraced := ""
		for deadline := time.Now().Add(50 * time.Millisecond); time.Now().Before(deadline) && untraced == ""; {
			ents, _ := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/task")
			for _, e := range ents {
				tid, _ := strconv.Atoi(e.Name())
				st, err := procfs.ReadStatus(tid)
				if err != nil {
					continue // gone
				}
				state := st["State"]
				dying := len(state) > 0 && (state[0] == "Z" || state[0] == "X")
				if n, _ := st.Int("TracerPid", false); n == 0 && !dying {
					untraced = e.Name()
				}
			}
		}
		syscall.Kill(pid, syscall.SIGKILL)
		tr.Ended()
		if untraced != "" {
			t.Fatalf("round %d: thread %s of %d is not traced", round, untraced, pid)
		}
	}
}
