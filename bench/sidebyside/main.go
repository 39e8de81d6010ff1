//go:build linux

// Command sidebyside times commands against each other in one run,
// interleaved: each round runs every command once, in an order that
// rotates from round to round, so that a machine busy with other work
// slows every row alike. For each run it records the wall time and the
// CPU (user+sys) of every process the command started, counted by the
// kernel's cgroup accounting where it can (as root, with cpuacct on cgroup
// v1 or cpu.stat on v2): rusage, which hyperfine reports, only sees the
// processes the command waits for and misses bwrap's sandbox. It prints a
// markdown table of medians with each row's ratio to a baseline row (or
// several tables: see printTable).
//
//	sidebyside -runs 40 -warmup 3 -baseline bwrap \
//	    'bwrap=bwrap --unshare-all ... /bin/true' 'nsrun=bin/nsrun -- /bin/true'
//
// Each argument is NAME=COMMAND; COMMAND is split on spaces, no shell;
// leading VAR=value words of COMMAND are added to its environment.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

type command struct {
	Name string
	Args []string
	Wall []float64 // ms, one per run
	CPU  []float64 // ms of every process (cgroup), one per run; empty without accounting
	RU   []float64 // ms of user+sys as rusage of the waited-for child reports it
}

func main() {
	runs := flag.Int("runs", 40, "timed runs of each command")
	warmup := flag.Int("warmup", 3, "untimed rounds first")
	baseline := flag.String("baseline", "bwrap", "the row the others are compared with")
	jsonOut := flag.String("json", "", "also write every run's figures here")
	flag.Parse()
	// The runner's own CPU is counted with each command's: no collector
	// should run in the middle of a run.
	debug.SetGCPercent(-1)
	var cmds []*command
	for _, a := range flag.Args() {
		name, line, ok := strings.Cut(a, "=")
		if !ok || strings.TrimSpace(line) == "" {
			fatal(fmt.Errorf("argument %q is not NAME=COMMAND", a))
		}
		cmds = append(cmds, &command{Name: name, Args: strings.Fields(line)})
	}
	if len(cmds) == 0 {
		fmt.Fprintln(os.Stderr, "usage: sidebyside [-runs N] [-warmup N] [-baseline NAME] [-json FILE] NAME=COMMAND...")
		os.Exit(2)
	}
	acct, err := newAccounting()
	if err != nil {
		fmt.Fprintf(os.Stderr, "sidebyside: no cgroup accounting (%v): the CPU column is rusage's\n", err)
	}
	err = measure(cmds, acct, *runs, *warmup)
	acct.close()
	if err != nil {
		fatal(err)
	}
	printTable(cmds, *baseline, acct != nil)
	if *jsonOut != "" {
		b, _ := json.MarshalIndent(cmds, "", " ")
		if err := os.WriteFile(*jsonOut, b, 0o644); err != nil {
			fatal(err)
		}
	}
}

// measure runs every command warmup+runs times, one round at a time, and
// keeps the figures of the last runs rounds.
func measure(cmds []*command, acct *accounting, runs, warmup int) error {
	for r := 0; r < warmup+runs; r++ {
		for i := range cmds {
			c := cmds[(r+i)%len(cmds)]
			wall, cpu, ru, err := c.run(acct)
			if err != nil {
				return fmt.Errorf("%s: %w", c.Name, err)
			}
			if r < warmup {
				continue
			}
			c.Wall, c.RU = append(c.Wall, wall), append(c.RU, ru)
			if acct != nil {
				c.CPU = append(c.CPU, cpu)
			}
		}
	}
	return nil
}

// run runs c once, its output discarded, and returns its wall time, the
// CPU of all its processes (with accounting) and its rusage, in ms.
func (c *command) run(acct *accounting) (wall, cpu, ru float64, err error) {
	// Leading VAR=value words set the command's environment, as a shell
	// would, without the exec of env(1) that would be counted.
	args, env := c.Args, os.Environ()
	for len(args) > 1 && isAssignment(args[0]) {
		env, args = append(env, args[0]), args[1:]
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = env
	var before int64
	if acct != nil {
		if before, err = acct.usage(); err != nil {
			return 0, 0, 0, err
		}
	}
	t0 := time.Now()
	err = cmd.Run()
	wall = ms(time.Since(t0))
	if err != nil {
		return 0, 0, 0, err
	}
	if acct != nil {
		after, err := acct.usage()
		if err != nil {
			return 0, 0, 0, err
		}
		cpu = float64(after-before) / 1e6
	}
	st := cmd.ProcessState
	ru = ms(st.UserTime() + st.SystemTime())
	return wall, cpu, ru, nil
}

// accounting is a cgroup this process moved itself into: every process it
// starts is counted there, and so is this process's own share of a run
// (starting and waiting for the command: the same for every row, and
// shown by a no-op row).
type accounting struct {
	dir, file string
	v2        bool
	home      string // the cgroup.procs this process came from
}

func newAccounting() (*accounting, error) {
	a := &accounting{}
	name := fmt.Sprintf("nsrun-sidebyside-%d", os.Getpid())
	if _, err := os.Stat("/sys/fs/cgroup/cpuacct/cpuacct.usage"); err == nil {
		self, err := ownV1("cpuacct")
		if err != nil {
			return nil, err
		}
		a.home = filepath.Join("/sys/fs/cgroup/cpuacct", self, "cgroup.procs")
		a.dir = filepath.Join("/sys/fs/cgroup/cpuacct", self, name)
		a.file = "cpuacct.usage"
	} else {
		self, err := ownV1("")
		if err != nil {
			return nil, err
		}
		base := "/sys/fs/cgroup"
		if _, err := os.Stat("/sys/fs/cgroup/unified/cgroup.procs"); err == nil {
			base = "/sys/fs/cgroup/unified"
		}
		a.home = filepath.Join(base, self, "cgroup.procs")
		a.dir, a.file, a.v2 = filepath.Join(base, self, name), "cpu.stat", true
	}
	if err := os.Mkdir(a.dir, 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(a.dir, "cgroup.procs"), []byte(strconv.Itoa(os.Getpid())), 0); err != nil {
		_ = os.Remove(a.dir)
		return nil, fmt.Errorf("move into %s: %w", a.dir, err)
	}
	if _, err := a.usage(); err != nil {
		a.close()
		return nil, err
	}
	return a, nil
}

// ownV1 is this process's cgroup in the v1 hierarchy of controller, or
// its v2 cgroup for "".
func ownV1(controller string) (string, error) {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		for _, c := range strings.Split(parts[1], ",") {
			if c == controller {
				return parts[2], nil
			}
		}
	}
	return "", fmt.Errorf("no %q line in /proc/self/cgroup", controller)
}

// usage is the nanoseconds of CPU the cgroup has used.
func (a *accounting) usage() (int64, error) {
	b, err := os.ReadFile(filepath.Join(a.dir, a.file))
	if err != nil {
		return 0, err
	}
	if !a.v2 {
		return strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "usage_usec "); ok {
			us, err := strconv.ParseInt(v, 10, 64)
			return us * 1000, err
		}
	}
	return 0, errors.New("no usage_usec in cpu.stat")
}

func (a *accounting) close() {
	if a == nil {
		return
	}
	_ = os.WriteFile(a.home, []byte(strconv.Itoa(os.Getpid())), 0)
	for i := 0; i < 100 && syscall.Rmdir(a.dir) != nil; i++ {
		time.Sleep(10 * time.Millisecond) // the last children leaving
	}
}

// printTable prints the rows in tables: a NAME written TABLE::NAME goes to
// table TABLE (headed by its name; the others to the first, unnamed), and a
// NAME ending in @N is a command that does N launches, its figures divided
// by N. Each table's ratios are to its row named baseline, or its first.
func printTable(cmds []*command, baseline string, counted bool) {
	var order []string
	tables := map[string][]*command{}
	for _, c := range cmds {
		t, _, ok := strings.Cut(c.Name, "::")
		if !ok {
			t = ""
		}
		if _, seen := tables[t]; !seen {
			order = append(order, t)
		}
		tables[t] = append(tables[t], c)
	}
	for i, t := range order {
		if i > 0 {
			fmt.Println()
		}
		if t != "" {
			fmt.Printf("%s:\n\n", t)
		}
		printOne(tables[t], baseline, counted)
	}
}

// rowName and per are a NAME's row label and divisor (TABLE:: and @N off).
func rowName(name string) (string, float64) {
	if _, n, ok := strings.Cut(name, "::"); ok {
		name = n
	}
	if i := strings.LastIndexByte(name, '@'); i > 0 {
		if n, err := strconv.Atoi(name[i+1:]); err == nil && n > 0 {
			return strings.TrimSpace(name[:i]), float64(n)
		}
	}
	return name, 1
}

func printOne(cmds []*command, baseline string, counted bool) {
	base := cmds[0]
	for _, c := range cmds {
		if n, _ := rowName(c.Name); n == baseline {
			base = c
		}
	}
	baseName, _ := rowName(base.Name)
	cpuOf := func(c *command) []float64 {
		if counted {
			return c.CPU
		}
		return c.RU
	}
	cpuHead := "CPU ms, every process"
	if !counted {
		cpuHead = "CPU ms (rusage)"
	}
	fmt.Printf("| command | runs | wall ms | wall p10–p90 | %s | CPU p10–p90 | CPU ms (rusage) | wall / %s | CPU / %s |\n", cpuHead, baseName, baseName)
	fmt.Println("|---|---|---|---|---|---|---|---|---|")
	_, bn := rowName(base.Name)
	for _, c := range cmds {
		name, n := rowName(c.Name)
		wr := fmt.Sprintf("%.2f", (median(c.Wall)/n)/(median(base.Wall)/bn))
		cr := fmt.Sprintf("%.2f", (median(cpuOf(c))/n)/(median(cpuOf(base))/bn))
		fmt.Printf("| %s | %d | %.2f | %.2f–%.2f | %.2f | %.2f–%.2f | %.2f | %s | %s |\n", name, len(c.Wall),
			median(c.Wall)/n, pct(c.Wall, 0.1)/n, pct(c.Wall, 0.9)/n,
			median(cpuOf(c))/n, pct(cpuOf(c), 0.1)/n, pct(cpuOf(c), 0.9)/n, median(c.RU)/n, wr, cr)
	}
}

func median(xs []float64) float64 { return pct(xs, 0.5) }

// pct is the p-quantile of xs, interpolated between the nearest ranks.
func pct(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	x := p * float64(len(s)-1)
	i := int(x)
	if i+1 >= len(s) {
		return s[i]
	}
	return s[i] + (x-float64(i))*(s[i+1]-s[i])
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "sidebyside:", err)
	os.Exit(1)
}

// isAssignment says whether w is NAME=value with NAME a shell variable's
// name.
func isAssignment(w string) bool {
	name, _, ok := strings.Cut(w, "=")
	if !ok || name == "" {
		return false
	}
	for i, r := range name {
		if r != '_' && !(r >= 'A' && r <= 'Z') && !(r >= 'a' && r <= 'z') && !(i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}
