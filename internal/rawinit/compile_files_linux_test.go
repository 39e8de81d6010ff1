package rawinit

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/nsrun/nsrun/internal/launch"
	"github.com/nsrun/nsrun/mounts"
)

// TestCompileFiles holds the ops of a denied file and a file of the
// sandbox's own, as mounts builds them: the scratch tmpfs (sized for the
// files, nosuid, nodev, noexec, with its "empty" file) made by the first
// op that needs it and not by one whose optional mount point is missing
// (that op skips it, and the next makes it unless made), the file written
// in one write checked whole, its mode set, each bound read-only, nosuid,
// nodev and noexec without AT_RECURSIVE, and the tmpfs closed after
// pivot_root.
func TestCompileFiles(t *testing.T) {
	s := smallSpec()
	s.Plan.Ops = append(s.Plan.Ops, mounts.Op{Kind: mounts.OpEmptyFile, Path: "/w/.npmrc", ReadOnly: true, Optional: true},
		mounts.Op{Kind: mounts.OpFile, Path: "/etc/hosts", ReadOnly: true, Content: "h\n", FileMode: 0o600},
		mounts.Op{Kind: mounts.OpEmptyFile, Path: "/w/.bash_history", ReadOnly: true},
		mounts.Op{Kind: mounts.OpFile, Path: "/etc/resolv.conf", ReadOnly: true, Optional: true})
	p, err := Compile(Input{Spec: s, Files: []int{0, 1, 2, 7, 8}, SyncR: 9, SyncW: 10, CapLast: 1})
	if err != nil {
		t.Fatal(err)
	}
	want := `
sys openat2 r4 "w/.npmrc" how{0x280000,0x16} 0x18 -> r12 ENOENT->61
sys fsopen "tmpfs" 0x1 -> r13
sys fsconfig r13 0x1 "source" "tmpfs"
sys fsconfig r13 0x1 "mode" "0755"
sys fsconfig r13 0x1 "size" "73730"
sys fsconfig r13 0x6
sys fsmount r13 0x1 0xe -> r14
sys close r13
sys openat r14 "empty" 0xa00c1 0x124 -> r15 ok=EEXIST
sys close r15 ok=9
store32 r14 scratch tmpfs fd
load32 scratch tmpfs fd -> r16
sys open_tree r16 "empty" 0x80001 -> r17
sys mount_setattr r17 "" 0x1000 attr{0xf} 0x20
sys move_mount r17 "" r12 "" 0x44
sys close r17
sys close r12
sys openat2 r4 "etc/hosts" how{0x280000,0x16} 0x18 -> r18
cmp scratch tmpfs fd 0xffffffff 0xffffffff 0x4 eq=false ->73
sys fsopen "tmpfs" 0x1 -> r19
sys fsconfig r19 0x1 "source" "tmpfs"
sys fsconfig r19 0x1 "mode" "0755"
sys fsconfig r19 0x1 "size" "73730"
sys fsconfig r19 0x6
sys fsmount r19 0x1 0xe -> r20
sys close r19
sys openat r20 "empty" 0xa00c1 0x124 -> r21 ok=EEXIST
sys close r21 ok=9
store32 r20 scratch tmpfs fd
load32 scratch tmpfs fd -> r22
sys openat r22 "file1" 0xa00c1 0x124 -> r23
sys write r23 content of /etc/hosts 0x2 -> r24
store32 r24 written
cmp written 0xffffffff 0x2 0x4 0x1c eq=false fail
sys fchmod r23 0x180
sys close r23
sys open_tree r22 "file1" 0x80001 -> r25
sys mount_setattr r25 "" 0x1000 attr{0xf} 0x20
sys move_mount r25 "" r18 "" 0x44
sys close r25
sys close r18
sys openat2 r4 "w/.bash_history" how{0x280000,0x16} 0x18 -> r26
load32 scratch tmpfs fd -> r27
sys open_tree r27 "empty" 0x80001 -> r28
sys mount_setattr r28 "" 0x1000 attr{0xf} 0x20
sys move_mount r28 "" r26 "" 0x44
sys close r28
sys close r26
sys openat2 r4 "etc/resolv.conf" how{0x280000,0x16} 0x18 -> r29 ENOENT->101
load32 scratch tmpfs fd -> r30
sys openat r30 "file2" 0xa00c1 0x124 -> r31
sys close r31
sys open_tree r30 "file2" 0x80001 -> r32
sys mount_setattr r32 "" 0x1000 attr{0xf} 0x20
sys move_mount r32 "" r29 "" 0x44
sys close r32
sys close r29
sys fchdir r4
sys pivot_root "." "."
sys umount2 "." 0x2
sys chdir "/"
sys close r4
load32 scratch tmpfs fd -> r33
sys close r33
sys prctl 0x4
`
	prog := p.String()
	start := strings.LastIndex(prog[:max(strings.Index(prog, `"w/.npmrc"`), 0)], "\n") + 1
	end := strings.Index(prog, "sys prctl 0x4\n")
	if start == 0 || end < 0 {
		t.Fatalf("no files in the program:\n%s", prog)
	}
	var got strings.Builder
	got.WriteString("\n")
	for _, l := range strings.SplitAfter(prog[start:end+len("sys prctl 0x4\n")], "\n") {
		if _, op, ok := strings.Cut(l, " "); ok || l == "" {
			got.WriteString(op)
		}
	}
	if got.String() != want {
		t.Errorf("the files:\n%s\nwant:\n%s", got.String(), want)
	}
	for i, st := range []string{"deny /w/.npmrc: the scratch tmpfs", "file /etc/hosts: move_mount on /etc/hosts", "deny /w/.bash_history: open_tree"} {
		found := false
		for _, s := range p.Steps {
			found = found || s == st
		}
		if !found {
			t.Errorf("step %d %q missing: %q", i, st, p.Steps)
		}
	}
}

// TestCLIAgentSpec: the spec `nsrun --preset agent -- true` sent its init
// (as root with HOME=/tmp/eh, in /tmp/rfdir, on the development VM): its
// denied files and its /etc/resolv.conf and /etc/hosts are built, and
// only its filtered network may send it to the Go init.
func TestCLIAgentSpec(t *testing.T) {
	b, err := os.ReadFile("testdata/cli-agent-spec.json")
	if err != nil {
		t.Fatal(err)
	}
	var s launch.Spec
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	if err := Supports(&s); err != nil && !strings.Contains(err.Error(), "the filtered network") {
		t.Errorf("refused for another reason than the filtered network: %v", err)
	}
	s.Net = false
	p, err := Compile(Input{Spec: &s, Files: []int{0, 1, 2, 7, 8}, SyncR: 9, SyncW: 10, Setsid: true, CapLast: 40})
	if err != nil {
		t.Fatal(err)
	}
	prog := p.String()
	for what, want := range map[string]int{`sys open_tree r\d+ "empty"`: 3, `sys open_tree r\d+ "file\d"`: 2, `sys fsconfig r\d+ 0x1 "size" "7\d{4}"`: 1} {
		if n := len(regexp.MustCompile(what).FindAllString(prog, -1)); n != want {
			t.Errorf("%d ops %s, want %d:\n%s", n, what, want, prog)
		}
	}
}
