//go:build linux

package integration

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// setIDBits returns the set-uid and set-gid bits of path on the host, or
// "absent".
func setIDBits(t *testing.T, path string) string {
	t.Helper()
	fi, err := os.Lstat(path)
	if os.IsNotExist(err) {
		return "absent"
	}
	if err != nil {
		t.Fatal(err)
	}
	var bits []string
	if fi.Mode()&os.ModeSetuid != 0 {
		bits = append(bits, "setuid")
	}
	if fi.Mode()&os.ModeSetgid != 0 {
		bits = append(bits, "setgid")
	}
	if fi.Mode().Type() != 0 && !fi.IsDir() {
		bits = append(bits, fi.Mode().Type().String())
	}
	return strings.Join(bits, ",")
}

// No file the sandbox writes in a --rw path carries a set-uid or set-gid
// bit on the host, whichever call or tool tries, in both modes. (As host
// root, uid 0 inside owns its files as host root: such a bit would make a
// root shell for any host user.) Ordinary modes keep working.
func TestNoSetIDFilesOnTheHost(t *testing.T) {
	for _, mode := range []string{"full", "landlock"} {
		ws := workspace(t)
		writeFile(t, filepath.Join(ws, "sh"), "#!/bin/sh\n")
		if err := os.Mkdir(filepath.Join(ws, "d"), 0o755); err != nil {
			t.Fatal(err)
		}
		opts := []string{"--isolation", mode, "--ro", filepath.Dir(helperBin), "--rw", ws}
		at := func(name string) string { return filepath.Join(ws, name) }
		for _, tc := range []struct {
			op   []string
			path string
			want string // the helper's answer; "EXDEV|EPERM" is either
		}{
			{[]string{"chmod", at("sh"), "4755"}, "sh", "EPERM"},
			{[]string{"chmod", at("sh"), "2755"}, "sh", "EPERM"},
			{[]string{"chmod", at("d"), "2775"}, "d", "EPERM"},
			{[]string{"fchmod", at("sh"), "6755"}, "sh", "EPERM"},
			{[]string{"fchmodat", at("sh"), "4711"}, "sh", "EPERM"},
			{[]string{"fchmodat2", at("sh"), "4755"}, "sh", "EPERM"},
			{[]string{"create", at("created"), "4755"}, "created", "EPERM"},
			{[]string{"create", at("created-gid"), "2755"}, "created-gid", "EPERM"},
			{[]string{"tmpfile", at("tmp"), "4755"}, "tmp", "EPERM"},
			{[]string{"mknod-file", at("node"), "4755"}, "node", "EPERM"},
			{[]string{"openat2", at("o2"), "4755"}, "o2", "ENOSYS"},
			{[]string{"mkdir-mode", at("m"), "6777"}, "m", "ok"}, // the kernel strips both bits
			{[]string{"setcap", at("sh")}, "sh", "EPERM"},        // no CAP_SETFCAP
			// A set-uid binary of the host hard-linked into the workspace.
			{[]string{"link", "/usr/bin/passwd", at("passwd")}, "passwd", "EXDEV|EPERM"},
			// Ordinary modes still work.
			{[]string{"chmod", at("sh"), "755"}, "sh", "ok"},
			{[]string{"create", at("plain"), "644"}, "plain", "ok"},
		} {
			got := helper(t, opts, tc.op[0], tc.op[1:]...)
			if !strings.Contains("|"+tc.want+"|", "|"+got+"|") {
				t.Errorf("%s: %s: got %s, want %s", mode, strings.Join(tc.op, " "), got, tc.want)
			}
			if bits := setIDBits(t, at(tc.path)); bits != "" && bits != "absent" {
				t.Errorf("%s: %v left %s with %s on the host", mode, tc.op, tc.path, bits)
			}
		}

		// Tools that set or preserve modes.
		src := filepath.Join(t.TempDir(), "src")
		if err := os.Mkdir(src, 0o755); err != nil {
			t.Fatal(err)
		}
		suid := filepath.Join(src, "suid")
		writeFile(t, suid, "#!/bin/sh\n")
		if err := os.Chmod(suid, 0o4755); err != nil {
			t.Fatal(err)
		}
		tarball := filepath.Join(ws, "t.tar")
		if out, err := exec.Command("tar", "-C", src, "-cf", tarball, "suid").CombinedOutput(); err != nil {
			t.Fatalf("tar: %v %s", err, out)
		}
		opts = append(opts, "--ro", src)
		for _, tool := range []struct {
			name string
			cmd  string
			path string
		}{
			{"chmod u+s", "chmod u+s sh", "sh"},
			{"chmod g+s", "chmod g+s sh", "sh"},
			{"install -m 4755", "install -m 4755 /bin/true inst", "inst"},
			{"cp -p", "cp -p " + suid + " cp", "cp"},
			{"cp -a", "cp -a " + suid + " cpa", "cpa"},
			{"tar -xpf", "mkdir x && tar -C x -xpf t.tar", "x/suid"},
			{"python os.chmod", "python3 -c 'import os; os.chmod(\"sh\", 0o4755)'", "sh"},
		} {
			r := run(t, ws, append(opts, "--chdir", ws, "--", "/bin/sh", "-c", tool.cmd)...)
			if bits := setIDBits(t, at(tool.path)); bits != "" && bits != "absent" {
				t.Errorf("%s: %s left %s with %s on the host: %v", mode, tool.name, tool.path, bits, r)
			}
		}
	}
}

// The set-id rules are nsrun's own, beside any profile: with a profile
// that allows everything they still hold, io_uring (which would open a
// file with any mode where no filter sees it) included.
func TestNoSetIDWhateverTheProfile(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("the syscall numbers below are amd64's")
	}
	ws := workspace(t)
	writeFile(t, filepath.Join(ws, "sh"), "#!/bin/sh\n")
	prof := filepath.Join(ws, "allow.json")
	writeFile(t, prof, `{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": []}`)
	opts := []string{"--seccomp", prof, "--rw", ws}
	expect(t, "chmod 4755", helper(t, opts, "chmod", filepath.Join(ws, "sh"), "4755"), "EPERM")
	if got, _ := sysc(t, opts, raw(unix.SYS_IO_URING_SETUP, 8, 0)...); got != "EPERM" {
		t.Errorf("io_uring_setup: %s", got)
	}
	if bits := setIDBits(t, filepath.Join(ws, "sh")); bits != "" {
		t.Errorf("sh is %s on the host", bits)
	}
	rep := filepath.Join(ws, "r.json")
	if r := run(t, ws, append(opts, "--report", rep, "--", "/bin/true")...); r.code != 0 || !strings.Contains(readFile(t, rep), `"no-setid"`) {
		t.Errorf("report: %v\n%s", r, readFile(t, rep))
	}
}
