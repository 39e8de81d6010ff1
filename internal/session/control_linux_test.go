package session

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMoreConfined(t *testing.T) {
	for _, tc := range []struct {
		peer, holder confined
		want         bool
	}{
		{confined{}, confined{}, false},
		{confined{noNewPrivs: true}, confined{}, true},
		{confined{noNewPrivs: true}, confined{noNewPrivs: true}, false},
		{confined{filters: 2}, confined{filters: 1}, true},
		{confined{filters: 1}, confined{filters: 2}, false},
		{confined{noNewPrivs: true, filters: 3}, confined{noNewPrivs: true, filters: 3}, false},
	} {
		if got := moreConfined(tc.peer, tc.holder); got != tc.want {
			t.Errorf("moreConfined(%+v, %+v) = %v", tc.peer, tc.holder, got)
		}
	}
}

func TestCheckName(t *testing.T) {
	for name, ok := range map[string]bool{
		"work": true, "a.b_c-1": true, "9": true,
		"": false, ".hidden": false, "-x": false, "a/b": false, "..": false, "a b": false,
		"x\n": false, string(make([]byte, 65)): false,
		strings.Repeat("a", 64): true, strings.Repeat("a", 65): false, "_x": false, "x_": true, "é": false,
	} {
		if err := CheckName(name); (err == nil) != ok {
			t.Errorf("CheckName(%q): %v", name, err)
		}
	}
}

// The sessions directory is made 0700 or refused: a symlink, another
// mode, or (as root) another user's directory planted first is never
// used.
func TestMakePrivateRefusesPlanted(t *testing.T) {
	base := t.TempDir()
	uid := os.Getuid()
	good := filepath.Join(base, "good")
	if got, err := makePrivate([]string{good}, uid); err != nil || got != good {
		t.Fatalf("makePrivate: %q, %v", got, err)
	}
	if st, _ := os.Stat(good); st.Mode().Perm() != 0o700 {
		t.Errorf("mode %v", st.Mode().Perm())
	}
	link := filepath.Join(base, "link")
	if err := os.Symlink(good, link); err != nil {
		t.Fatal(err)
	}
	if _, err := makePrivate([]string{link}, uid); err == nil {
		t.Error("a symlink was used")
	}
	open := filepath.Join(base, "open")
	if err := os.Mkdir(open, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	if _, err := makePrivate([]string{open}, uid); err == nil {
		t.Error("a world-writable directory was used")
	}
	if uid == 0 {
		theirs := filepath.Join(base, "theirs")
		if err := os.Mkdir(theirs, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(theirs, 12345, 12345); err != nil {
			t.Fatal(err)
		}
		if _, err := makePrivate([]string{theirs}, uid); err == nil {
			t.Error("another user's directory was used")
		}
	}
}

// Listen claims a name once; a lock nobody holds is taken over.
func TestListenClaimsOnce(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	l, err := Listen("one")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Listen("one"); err == nil {
		t.Error("a second Listen of a live name")
	}
	dir := l.Dir
	// A holder killed: its files stay, its lock is free.
	stale := filepath.Join(dir, "dead")
	for _, ext := range []string{".lock", ".sock", ".json"} {
		if err := os.WriteFile(stale+ext, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	RemoveStale(dir)
	for _, ext := range []string{".lock", ".sock", ".json"} {
		if _, err := os.Stat(stale + ext); err == nil {
			t.Errorf("%s%s left", stale, ext)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "one.sock")); err != nil {
		t.Errorf("the live session's socket was removed: %v", err)
	}
	l.Close()
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left after Close: %v", entries)
	}
}
