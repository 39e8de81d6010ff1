// Command launch measures launches from a running Go program, as a server
// embedding nsrun makes them: N runs of /bin/true through the nsrun
// package, or through os/exec starting bwrap, P at a time. Each nsrun
// launch reads its report's usage. It prints one JSON line: the median
// wall time of one launch and the launches per second. (Its CPU is measured from outside, by cgroup accounting: rusage
// misses bwrap's sandbox.)
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sort"
	"sync"
	"time"

	"github.com/nsrun/nsrun"
)

func main() {
	if code, ran := nsrun.Init(); ran {
		os.Exit(code)
	}
	n := flag.Int("n", 200, "launches")
	par := flag.Int("p", 1, "launches at a time")
	ws := flag.String("ws", "", "the writable workspace")
	bwrap := flag.Bool("bwrap", false, "start bwrap with os/exec instead of nsrun")
	heapMiB := flag.Int("heap", 0, "MiB of live, touched heap the program holds, as a busy server would")
	share := flag.Bool("share-memory", false, "set nsrun.Cmd.ShareMemory: the init shares this program's memory")
	flag.Parse()
	heap := make([][]byte, *heapMiB)
	for i := range heap {
		heap[i] = make([]byte, 1<<20)
		for j := 0; j < len(heap[i]); j += 4096 {
			heap[i][j] = 1
		}
	}
	if *ws == "" {
		fmt.Fprintln(os.Stderr, "launch: -ws is required")
		os.Exit(2)
	}
	launch := func() error {
		cmd := nsrun.Command(&nsrun.Policy{Rules: []nsrun.Rule{{Path: *ws, Access: nsrun.ReadWrite}}}, "/bin/true")
		cmd.ShareMemory = *share
		if err := cmd.Run(); err != nil {
			return err
		}
		// The metrics are part of every run: a run without them is a
		// failure, not a faster row.
		if u := cmd.Report().Usage; u == nil || u.WallMS <= 0 {
			return fmt.Errorf("no usage in the report: %+v", u)
		}
		return nil
	}
	if *bwrap {
		launch = func() error {
			return exec.Command("bwrap", "--unshare-all", "--die-with-parent", "--ro-bind", "/", "/", "--dev", "/dev",
				"--proc", "/proc", "--tmpfs", "/tmp", "--bind", *ws, *ws, "/bin/true").Run()
		}
	}
	times := make([]time.Duration, *n)
	next := make(chan int)
	var wg sync.WaitGroup
	var failed error
	var mu sync.Mutex
	start := time.Now()
	for w := 0; w < *par; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				t := time.Now()
				if err := launch(); err != nil {
					mu.Lock()
					failed = err
					mu.Unlock()
				}
				times[i] = time.Since(t)
			}
		}()
	}
	for i := 0; i < *n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	wall := time.Since(start)
	if failed != nil {
		fmt.Fprintln(os.Stderr, "launch:", failed)
		os.Exit(1)
	}
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	runtime.KeepAlive(heap)
	json.NewEncoder(os.Stdout).Encode(map[string]float64{
		"median_ms":      ms(times[len(times)/2]),
		"launches_per_s": float64(*n) / wall.Seconds(),
	})
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
