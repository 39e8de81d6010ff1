package windows

import (
	"os"
	"path/filepath"
	"testing"
	"unsafe"

	"golang.org/x/sys/windows"
)

// kernel32's GetHandleInformation is not in golang.org/x/sys/windows.
var procGetHandleInformation = windows.NewLazySystemDLL("kernel32.dll").NewProc("GetHandleInformation")

func handleFlags(h windows.Handle) (uint32, error) {
	var flags uint32
	if r, _, err := procGetHandleInformation.Call(uintptr(h), uintptr(unsafe.Pointer(&flags))); r == 0 {
		return 0, err
	}
	return flags, nil
}

// TestStartLeavesTheCallersHandlesAlone starts a payload with files as its
// standard streams: they are not inheritable afterwards (the payload got
// copies), and its output reaches them.
func TestStartLeavesTheCallersHandlesAlone(t *testing.T) {
	dir := t.TempDir()
	s, err := NewSession()
	if err != nil {
		t.Fatal(err)
	}
	plan, err := MakePlan(Input{})
	if err != nil {
		t.Fatal(err)
	}
	token, err := s.Token(plan)
	if err != nil {
		t.Fatal(err)
	}
	defer token.Close()
	in, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(filepath.Join(dir, "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	// stdout and stderr one file: one copy, listed once.
	std := [3]windows.Handle{windows.Handle(in.Fd()), windows.Handle(out.Fd()), windows.Handle(out.Fd())}
	comspec := os.Getenv("ComSpec")
	if comspec == "" {
		comspec = `C:\Windows\System32\cmd.exe`
	}
	p, err := Start(token, windows.ComposeCommandLine([]string{comspec, "/c", "echo hello"}), os.Environ(), "", std)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if code, err := p.Wait(); err != nil || code != 0 {
		t.Fatalf("payload: %d, %v", code, err)
	}
	for i, h := range std {
		flags, err := handleFlags(h)
		if err != nil {
			t.Fatal(err)
		}
		if flags&windows.HANDLE_FLAG_INHERIT != 0 {
			t.Errorf("standard handle %d of the caller's is inheritable after Start", i)
		}
	}
	b, err := os.ReadFile(out.Name())
	if err != nil || len(b) == 0 {
		t.Errorf("the payload's output: %q, %v", b, err)
	}
}
