package gitguard

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"golang.org/x/sys/unix"
)

// dirent is one linux_dirent64 record, padded to 8 bytes.
func dirent(name string, typ byte) []byte {
	n := (19 + len(name) + 1 + 7) &^ 7
	b := make([]byte, n)
	binary.NativeEndian.PutUint64(b, 1)
	binary.NativeEndian.PutUint16(b[16:], uint16(n))
	b[18] = typ
	copy(b[19:], name)
	return b
}

// Records are read by their length and type; an entry of unknown type is
// stat'ed in its directory, without following a symlink; a record that
// does not fit is an error.
func TestParseDirents(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "objects"), 0o755)
	os.Symlink("/", filepath.Join(dir, "up"))
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	var b []byte
	for _, e := range []struct {
		name string
		typ  byte
	}{{".", unix.DT_DIR}, {"..", unix.DT_DIR}, {".git", unix.DT_REG}, {"HEAD", unix.DT_REG}, {"src", unix.DT_DIR},
		{"lib", unix.DT_LNK}, {"objects", unix.DT_UNKNOWN}, {"up", unix.DT_UNKNOWN}, {"gone", unix.DT_UNKNOWN}, {"sock", unix.DT_SOCK}} {
		b = append(b, dirent(e.name, e.typ)...)
	}
	r := newReader()
	l := &listing{}
	if err := r.parse(fd, b, l); err != nil {
		t.Fatal(err)
	}
	want := &listing{hasDotgit: true, dotgit: 0, head: true, objects: true, dirs: []string{"src", "objects"}}
	if !reflect.DeepEqual(l, want) {
		t.Errorf("got %+v, want %+v", l, want)
	}
	if l.layout() != dotgitFile || !l.gitDirNames() {
		t.Errorf("layout %d, git directory %v", l.layout(), l.gitDirNames())
	}
	bad := dirent("x", unix.DT_DIR)
	binary.NativeEndian.PutUint16(bad[16:], uint16(len(bad)+8))
	for _, b := range [][]byte{bad, make([]byte, 10), make([]byte, 24)} {
		if err := r.parse(fd, b, &listing{}); err == nil {
			t.Errorf("%x: no error", b)
		}
	}
	sym := &listing{}
	r.parse(fd, dirent(".git", unix.DT_UNKNOWN), sym)
	if sym.hasDotgit {
		t.Errorf("a .git that is not there: %+v", sym)
	}
}

// read on a real directory, and on a symlink to one (refused: the walk
// never follows one).
func TestReadListing(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, ".git"), 0o755)
	os.Mkdir(filepath.Join(dir, "src"), 0o755)
	os.WriteFile(filepath.Join(dir, "f"), nil, 0o644)
	os.Symlink(dir, filepath.Join(dir, "loop"))
	for i := 0; i < 3000; i++ {
		// more than one getdents buffer
		os.WriteFile(filepath.Join(dir, "src", "file-with-a-longish-name-"+numName(i)), nil, 0o644)
	}
	l, err := newReader().read(dir)
	if err != nil || !l.hasDotgit || l.layout() != dotgitDir || !reflect.DeepEqual(l.dirs, []string{"src"}) {
		t.Errorf("%+v %v", l, err)
	}
	if l, err := newReader().read(filepath.Join(dir, "src")); err != nil || len(l.dirs) != 0 {
		t.Errorf("a large directory: %+v %v", l, err)
	}
	if _, err := newReader().read(filepath.Join(dir, "loop")); err == nil {
		t.Error("a symlink was followed")
	}
}

func numName(i int) string {
	return string(rune('a'+i%26)) + string(rune('a'+i/26%26)) + string(rune('a'+i/676%26))
}
