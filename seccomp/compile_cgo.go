//go:build linux && cgo

package seccomp

import (
	"errors"
	"fmt"
	"io"
	"os"

	libseccomp "github.com/seccomp/libseccomp-golang"
	"golang.org/x/sys/unix"
)

// Available reports whether this build can compile profiles.
const Available = true

var scmpOps = map[Op]libseccomp.ScmpCompareOp{
	OpNE: libseccomp.CompareNotEqual, OpLT: libseccomp.CompareLess, OpLE: libseccomp.CompareLessOrEqual,
	OpEQ: libseccomp.CompareEqual, OpGE: libseccomp.CompareGreaterEqual, OpGT: libseccomp.CompareGreater,
	OpMaskedEq: libseccomp.CompareMaskedEqual,
}

func scmpAction(a Action) (libseccomp.ScmpAction, error) {
	switch a.Kind {
	case ActAllow:
		return libseccomp.ActAllow, nil
	case ActErrno:
		return libseccomp.ActErrno.SetReturnCode(int16(a.Errno)), nil
	case ActKillProcess:
		return libseccomp.ActKillProcess, nil
	case ActKillThread:
		return libseccomp.ActKillThread, nil
	case ActTrap:
		return libseccomp.ActTrap, nil
	case ActTrace:
		return libseccomp.ActTrace.SetReturnCode(int16(a.Errno)), nil
	case ActLog:
		return libseccomp.ActLog, nil
	}
	return 0, fmt.Errorf("unknown action %v", a.Kind)
}

// resolve finds the native number of a syscall name.
func resolve(name string) (libseccomp.ScmpSyscall, bool) {
	if sc, err := libseccomp.GetSyscallFromName(name); err == nil {
		return sc, true
	}
	if nr, ok := newSyscalls[name]; ok {
		return libseccomp.ScmpSyscall(nr), true
	}
	return 0, false
}

// Compile turns p into a BPF program for the native architecture with
// libseccomp. Calls of other architectures, and x32 calls on amd64 unless
// the profile lists x32, kill the process. A name that cannot be resolved
// is an error, except in a rule that allows what the default denies.
func Compile(p Profile) (*Compiled, error) {
	def, err := scmpAction(p.DefaultAction)
	if err != nil {
		return nil, err
	}
	f, err := libseccomp.NewFilter(def)
	if err != nil {
		return nil, fmt.Errorf("seccomp_init: %w", err)
	}
	defer f.Release()
	if err := f.SetBadArchAction(libseccomp.ActKillProcess); err != nil {
		return nil, fmt.Errorf("seccomp bad-arch action: %w", err)
	}
	// A binary tree of syscall numbers instead of a linear list: a call
	// that no rule names passes a handful of comparisons, not all of them.
	if err := f.SetOptimize(2); err != nil {
		return nil, fmt.Errorf("seccomp optimize: %w", err)
	}
	for _, a := range p.ExtraArches {
		arch, err := libseccomp.GetArchFromString(a)
		if err != nil {
			return nil, fmt.Errorf("seccomp profile %s: architecture %q: %w", p.Name, a, err)
		}
		if err := f.AddArch(arch); err != nil && !errors.Is(err, unix.EEXIST) {
			return nil, fmt.Errorf("seccomp profile %s: add architecture %s: %w", p.Name, a, err)
		}
	}
	out := &Compiled{}
	// Calls with a rule that allows (for an allowlist) or restricts (for a
	// denylist), counted for the report.
	counted := map[libseccomp.ScmpSyscall]bool{}
	for _, r := range p.Rules {
		act, err := scmpAction(r.Action)
		if err != nil {
			return nil, err
		}
		var conds []libseccomp.ScmpCondition
		for _, a := range r.Args {
			values := []uint64{a.Value}
			if a.Op == OpMaskedEq {
				values = append(values, a.ValueTwo)
			}
			c, err := libseccomp.MakeCondition(a.Index, scmpOps[a.Op], values...)
			if err != nil {
				return nil, fmt.Errorf("seccomp profile %s: %s argument %d: %w", p.Name, r.Names[0], a.Index, err)
			}
			conds = append(conds, c)
		}
		for _, name := range r.Names {
			sc, ok := resolve(name)
			if !ok {
				if r.Action.Kind == ActAllow && p.DefaultAction.Kind != ActAllow {
					out.Skipped = append(out.Skipped, name)
					continue
				}
				return nil, fmt.Errorf("seccomp profile %s: unknown syscall %q", p.Name, name)
			}
			if r.Action == p.DefaultAction {
				continue // libseccomp refuses a rule that repeats the default
			}
			if len(conds) == 0 {
				err = f.AddRule(sc, act)
			} else {
				err = f.AddRuleConditional(sc, act, conds)
			}
			if err != nil {
				// libseccomp cannot carry a call it does not know to the
				// profile's other architectures; allowing it may be left
				// out, since it then stays denied.
				if _, byNumber := newSyscalls[name]; byNumber && r.Action.Kind == ActAllow && p.DefaultAction.Kind != ActAllow {
					out.Skipped = append(out.Skipped, name)
					continue
				}
				return nil, fmt.Errorf("seccomp profile %s: rule for %s: %w", p.Name, name, err)
			}
			if (r.Action.Kind == ActAllow) != (p.DefaultAction.Kind == ActAllow) {
				counted[sc] = true
			}
		}
	}
	out.Blocked = len(counted)
	if p.DefaultAction.Kind != ActAllow {
		out.Blocked = knownSyscalls() - len(counted)
	}
	if out.Program, err = export(f); err != nil {
		return nil, err
	}
	return out, nil
}

// knownSyscalls counts the native syscalls libseccomp can name.
func knownSyscalls() int {
	n := 0
	for nr := 0; nr < 1024; nr++ {
		if _, err := libseccomp.ScmpSyscall(nr).GetName(); err == nil {
			n++
		}
	}
	return n + len(newSyscalls)
}

// export writes the filter out as BPF through a memfd (libseccomp 2.5 has
// no in-memory export).
func export(f *libseccomp.ScmpFilter) (Program, error) {
	fd, err := unix.MemfdCreate("nsrun-seccomp", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("memfd_create: %w", err)
	}
	file := os.NewFile(uintptr(fd), "nsrun-seccomp")
	defer file.Close()
	if err := f.ExportBPF(file); err != nil {
		return nil, fmt.Errorf("seccomp_export_bpf: %w", err)
	}
	if _, err := file.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	b, err := io.ReadAll(file)
	if err != nil {
		return nil, err
	}
	if len(b) == 0 {
		return nil, errors.New("seccomp_export_bpf wrote nothing")
	}
	return decodeBPF(b)
}
