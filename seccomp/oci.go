package seccomp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"

	specs "github.com/opencontainers/runtime-spec/specs-go"
)

// dockerProfile is the OCI runtime-spec seccomp object with Docker's
// additions (archMap, per-rule includes and excludes, comments) and
// podman's and CRI-O's (the errno's name beside its number).
type dockerProfile struct {
	DefaultAction    specs.LinuxSeccompAction `json:"defaultAction"`
	DefaultErrnoRet  *uint                    `json:"defaultErrnoRet,omitempty"`
	DefaultErrno     string                   `json:"defaultErrno,omitempty"`
	Architectures    []specs.Arch             `json:"architectures,omitempty"`
	ArchMap          []archMap                `json:"archMap,omitempty"`
	Flags            []specs.LinuxSeccompFlag `json:"flags,omitempty"`
	ListenerPath     string                   `json:"listenerPath,omitempty"`
	ListenerMetadata string                   `json:"listenerMetadata,omitempty"`
	Syscalls         []dockerSyscall          `json:"syscalls,omitempty"`
}

type archMap struct {
	Arch    specs.Arch   `json:"architecture"`
	SubArch []specs.Arch `json:"subArchitectures"`
}

type dockerSyscall struct {
	specs.LinuxSyscall
	Name     string     `json:"name,omitempty"`
	Errno    string     `json:"errno,omitempty"`
	Comment  string     `json:"comment,omitempty"`
	Includes *condition `json:"includes,omitempty"`
	Excludes *condition `json:"excludes,omitempty"`
}

type condition struct {
	Arches    []string `json:"arches,omitempty"`
	Caps      []string `json:"caps,omitempty"`
	MinKernel string   `json:"minKernel,omitempty"`
}

// Host is what decides which of a Docker profile's conditional rules
// apply: the native architecture and the kernel version. A sandbox has no
// capabilities, so rules that need one never apply.
type Host struct {
	Arch   string // OCI name, e.g. "SCMP_ARCH_X86_64"; Docker's short names ("amd64") also match
	Kernel [2]int // major, minor
}

var actions = map[specs.LinuxSeccompAction]ActionKind{
	specs.ActAllow: ActAllow, specs.ActErrno: ActErrno, specs.ActKillProcess: ActKillProcess,
	specs.ActKill: ActKillThread, specs.ActKillThread: ActKillThread, specs.ActTrap: ActTrap,
	specs.ActTrace: ActTrace, specs.ActLog: ActLog,
}

var ops = map[specs.LinuxSeccompOperator]Op{
	specs.OpNotEqual: OpNE, specs.OpLessThan: OpLT, specs.OpLessEqual: OpLE, specs.OpEqualTo: OpEQ,
	specs.OpGreaterEqual: OpGE, specs.OpGreaterThan: OpGT, specs.OpMaskedEqual: OpMaskedEq,
}

// ociArches are the architectures the runtime spec names; built on first
// use.
var ociArches = sync.OnceValue(func() map[specs.Arch]bool {
	return map[specs.Arch]bool{
		specs.ArchX86: true, specs.ArchX86_64: true, specs.ArchX32: true, specs.ArchARM: true,
		specs.ArchAARCH64: true, specs.ArchMIPS: true, specs.ArchMIPS64: true, specs.ArchMIPS64N32: true,
		specs.ArchMIPSEL: true, specs.ArchMIPSEL64: true, specs.ArchMIPSEL64N32: true, specs.ArchPPC: true,
		specs.ArchPPC64: true, specs.ArchPPC64LE: true, specs.ArchS390: true, specs.ArchS390X: true,
		specs.ArchPARISC: true, specs.ArchPARISC64: true, specs.ArchRISCV64: true, specs.ArchLOONGARCH64: true,
		specs.ArchM68K: true, specs.ArchSH: true, specs.ArchSHEB: true,
	}
})

// shortArch is Docker's name for an OCI architecture in includes.arches.
var shortArch = map[string]string{
	"SCMP_ARCH_X86_64": "amd64", "SCMP_ARCH_X86": "x86", "SCMP_ARCH_X32": "x32",
	"SCMP_ARCH_AARCH64": "arm64", "SCMP_ARCH_ARM": "arm",
}

// ParseOCI reads an OCI runtime-spec or Docker seccomp profile. Anything it
// does not know, or knows and cannot honour (user notification, filter
// flags), is an error: a profile is applied whole or not at all.
func ParseOCI(data []byte, name string, host Host) (Profile, error) {
	var d dockerProfile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&d); err != nil {
		return Profile{}, fmt.Errorf("seccomp profile %s: %w", name, err)
	}
	fail := func(format string, a ...any) (Profile, error) {
		return Profile{}, fmt.Errorf("seccomp profile %s: "+format, append([]any{name}, a...)...)
	}
	if len(d.Flags) > 0 {
		return fail("flags %v are not supported", d.Flags)
	}
	if d.ListenerPath != "" || d.ListenerMetadata != "" {
		return fail("user notification (listenerPath) is not supported")
	}
	p := Profile{Name: name}
	var err error
	ret, err := errnoRet(d.DefaultErrnoRet, d.DefaultErrno, "defaultErrnoRet", "defaultErrno")
	if err != nil {
		return fail("%v", err)
	}
	if p.DefaultAction, err = action(d.DefaultAction, ret); err != nil {
		return fail("defaultAction: %v", err)
	}
	var listed []specs.Arch
	for _, a := range d.Architectures {
		if string(a) != host.Arch {
			listed = append(listed, a)
		}
	}
	for _, m := range d.ArchMap {
		if !ociArches()[m.Arch] {
			return fail("archMap: unknown architecture %q", m.Arch)
		}
		if string(m.Arch) == host.Arch {
			listed = append(listed, m.SubArch...)
		}
	}
	for _, a := range listed {
		if !ociArches()[a] {
			return fail("unknown architecture %q", a)
		}
		p.ExtraArches = append(p.ExtraArches, archName(a))
	}
	for i, s := range d.Syscalls {
		if !applies(s, host) {
			continue
		}
		names := s.Names
		if s.Name != "" {
			names = append(names, s.Name)
		}
		if len(names) == 0 {
			return fail("syscalls[%d]: no names", i)
		}
		r := Rule{Names: names, Reason: s.Comment}
		ret, err := errnoRet(s.ErrnoRet, s.Errno, "errnoRet", "errno")
		if err != nil {
			return fail("syscalls[%d] (%s): %v", i, names[0], err)
		}
		if r.Action, err = action(s.Action, ret); err != nil {
			return fail("syscalls[%d] (%s): %v", i, names[0], err)
		}
		for _, a := range s.Args {
			op, ok := ops[a.Op]
			if !ok {
				return fail("syscalls[%d] (%s): unknown op %q", i, names[0], a.Op)
			}
			if a.Index > 5 {
				return fail("syscalls[%d] (%s): argument index %d is past the sixth", i, names[0], a.Index)
			}
			r.Args = append(r.Args, Arg{Index: a.Index, Value: a.Value, ValueTwo: a.ValueTwo, Op: op})
		}
		p.Rules = append(p.Rules, r)
	}
	return p, nil
}

// errnoRet is the errno a rule or the default returns: its number, or the
// name podman's and CRI-O's profiles give beside it (both must agree).
func errnoRet(ret *uint, name, retField, nameField string) (*uint, error) {
	if name == "" {
		return ret, nil
	}
	n, ok := errnoNumbers()[name]
	if !ok {
		return nil, fmt.Errorf("%s %q: not a Linux errno name", nameField, name)
	}
	if ret != nil && *ret != n {
		return nil, fmt.Errorf("%s %d and %s %s (%d) disagree", retField, *ret, nameField, name, n)
	}
	return &n, nil
}

func action(a specs.LinuxSeccompAction, errno *uint) (Action, error) {
	if a == specs.ActNotify {
		return Action{}, fmt.Errorf("action %s needs a listener, which nsrun does not run", a)
	}
	kind, ok := actions[a]
	if !ok {
		return Action{}, fmt.Errorf("unknown action %q", a)
	}
	out := Action{Kind: kind}
	if kind == ActErrno {
		out.Errno = errEPERM
		if errno != nil {
			if *errno > 4095 {
				return Action{}, fmt.Errorf("errnoRet %d is not an errno", *errno)
			}
			out.Errno = uint16(*errno)
		}
	}
	return out, nil
}

// archName turns "SCMP_ARCH_X86_64" into "x86_64".
func archName(a specs.Arch) string {
	return strings.ToLower(strings.TrimPrefix(string(a), "SCMP_ARCH_"))
}

// applies evaluates Docker's includes and excludes for a sandbox, which has
// no capabilities.
func applies(s dockerSyscall, host Host) bool {
	archMatch := func(arches []string) bool {
		for _, a := range arches {
			if a == host.Arch || a == shortArch[host.Arch] {
				return true
			}
		}
		return false
	}
	if in := s.Includes; in != nil {
		if len(in.Caps) > 0 || len(in.Arches) > 0 && !archMatch(in.Arches) ||
			in.MinKernel != "" && !kernelAtLeast(host.Kernel, in.MinKernel) {
			return false
		}
	}
	if ex := s.Excludes; ex != nil {
		if len(ex.Arches) > 0 && archMatch(ex.Arches) || ex.MinKernel != "" && kernelAtLeast(host.Kernel, ex.MinKernel) {
			return false
		}
	}
	return true
}

func kernelAtLeast(k [2]int, min string) bool {
	major, minor, _ := strings.Cut(min, ".")
	ma, err1 := strconv.Atoi(major)
	mi, err2 := strconv.Atoi(minor)
	if err1 != nil || err2 != nil {
		return false
	}
	return k[0] > ma || k[0] == ma && k[1] >= mi
}
