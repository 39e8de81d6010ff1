package gitguard

import (
	"crypto/sha1"
	"encoding/binary"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// BenchmarkWalk is the walk at each launch of the preset over a tree of
// 20,000 directories with five files each (GITGUARD_TREE names another
// tree to walk). cpu-ms/op is the processor time, less sensitive than the
// time per op to what else the machine runs.
func BenchmarkWalk(b *testing.B) {
	root := os.Getenv("GITGUARD_TREE")
	if root == "" {
		root = b.TempDir()
		tree(b, root, 20_000, 5)
	}
	var before, after unix.Rusage
	unix.Getrusage(unix.RUSAGE_SELF, &before)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		walk(root, walkLimit, func(string, *listing) {}, nil)
	}
	b.StopTimer()
	unix.Getrusage(unix.RUSAGE_SELF, &after)
	cpu := after.Utime.Nano() + after.Stime.Nano() - before.Utime.Nano() - before.Stime.Nano()
	b.ReportMetric(float64(cpu)/1e6/float64(b.N), "cpu-ms/op")
}

// The listing of a directory as the walk reads it, and what the walk
// reads below it.
func TestListing(t *testing.T) {
	build := func(t *testing.T, names map[string]fs.FileMode) (string, *listing) {
		dir := t.TempDir()
		for n, m := range names {
			p := filepath.Join(dir, n)
			var err error
			switch m {
			case fs.ModeDir:
				err = os.Mkdir(p, 0o755)
			case fs.ModeSymlink:
				err = os.Symlink(".", p)
			case fs.ModeIrregular:
				err = unix.Mkfifo(p, 0o644)
			default:
				err = os.WriteFile(p, nil, 0o644)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		l, err := newReader().read(dir)
		if err != nil {
			t.Fatal(err)
		}
		return dir, l
	}
	for _, tc := range []struct {
		name    string
		entries map[string]fs.FileMode
		layout  layout
		gitDir  bool
		descend int
	}{
		{"plain", map[string]fs.FileMode{"src": fs.ModeDir, "f": 0}, plain, false, 1},
		{"a work tree", map[string]fs.FileMode{".git": fs.ModeDir, "src": fs.ModeDir}, dotgitDir, false, 1},
		{"a .git file", map[string]fs.FileMode{".git": 0, "src": fs.ModeDir}, dotgitFile, false, 1},
		{"a .git symlink", map[string]fs.FileMode{".git": fs.ModeSymlink}, dotgitDir, false, 0},
		{"a .git fifo", map[string]fs.FileMode{".git": fs.ModeIrregular}, dotgitDir, false, 0},
		{"a bare repository", map[string]fs.FileMode{"HEAD": 0, "objects": fs.ModeDir, "refs": fs.ModeDir, "hooks": fs.ModeDir}, plain, true, 0},
		// Where case matters (the test's directory), git sees no git
		// directory there: protected all the same, and looked into.
		{"a bare repository's names in another case", map[string]fs.FileMode{"head": 0, "Objects": fs.ModeDir, "REFS": fs.ModeDir}, plain, true, 2},
		{"a linked worktree's git directory", map[string]fs.FileMode{"HEAD": 0, "commondir": 0}, plain, true, 0},
		{"HEAD and objects: protected, looked into", map[string]fs.FileMode{"HEAD": 0, "objects": fs.ModeDir}, plain, true, 1},
		{"a work tree that looks like a git directory", map[string]fs.FileMode{".git": fs.ModeDir, "HEAD": 0, "objects": fs.ModeDir, "refs": fs.ModeDir}, dotgitDir, true, 2},
		{"HEAD alone", map[string]fs.FileMode{"HEAD": 0, "refs": fs.ModeDir}, plain, false, 1},
		{".GIT, an ordinary directory where case matters", map[string]fs.FileMode{".GIT": fs.ModeDir}, dotgitDir, false, 1},
		{".git and .GIT", map[string]fs.FileMode{".git": fs.ModeDir, ".GIT": fs.ModeDir}, dotgitDir, false, 1},
		{"a symlink to a directory", map[string]fs.FileMode{"lib": fs.ModeSymlink, "d": fs.ModeDir}, plain, false, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, l := build(t, tc.entries)
			if l.layout() != tc.layout || l.gitDirNames() != tc.gitDir || len(l.descend(dir)) != tc.descend {
				t.Errorf("layout %d git directory %v descend %q", l.layout(), l.gitDirNames(), l.descend(dir))
			}
		})
	}
}

// A .git that git passes over (a FIFO, a symlink leading nowhere) makes
// no work tree: nothing is protected there, and a repository made in its
// place is named after the run; left as it was, it is not.
func TestDotgitGitPassesOver(t *testing.T) {
	ws := canon(t, t.TempDir())
	newRepo(t, ws)
	for _, d := range []string{"fifo", "nowhere", "kept"} {
		os.Mkdir(filepath.Join(ws, d), 0o755)
	}
	unix.Mkfifo(filepath.Join(ws, "fifo", ".git"), 0o644)
	unix.Mkfifo(filepath.Join(ws, "kept", ".git"), 0o644)
	os.Symlink("../gitdirs/x.git", filepath.Join(ws, "nowhere", ".git"))
	p := protect(ws)
	for _, d := range []string{"fifo", "nowhere", "kept"} {
		if p.Known[filepath.Join(ws, d)] {
			t.Errorf("%s is known", d)
		}
	}
	os.Remove(filepath.Join(ws, "fifo", ".git"))
	newRepo(t, filepath.Join(ws, "fifo"))
	newRepo(t, filepath.Join(ws, "gitdirs", "x.git"))
	made, _, _ := Made(p.Roots, p.Known)
	if got, want := rel(ws, made), []string{"fifo", "gitdirs/x.git", "nowhere"}; !reflect.DeepEqual(got, want) {
		t.Errorf("made %q, want %q", got, want)
	}
}

// forgeStat writes into the index of the repository at ws, for the entry
// name, the stat data of the file as it is now, beside the object id the
// entry had: git then takes the file for unchanged.
func forgeStat(t *testing.T, ws, name string) {
	t.Helper()
	var st unix.Stat_t
	if err := unix.Lstat(filepath.Join(ws, name), &st); err != nil {
		t.Fatal(err)
	}
	index := filepath.Join(ws, ".git", "index")
	b, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	off := 12
	for i := uint32(0); i < binary.BigEndian.Uint32(b[8:]); i++ {
		n := int(binary.BigEndian.Uint16(b[off+60:]) & 0xfff)
		if string(b[off+62:off+62+n]) == name {
			for j, v := range []uint32{uint32(st.Ctim.Sec), uint32(st.Ctim.Nsec), uint32(st.Mtim.Sec), uint32(st.Mtim.Nsec), uint32(st.Dev), uint32(st.Ino)} {
				binary.BigEndian.PutUint32(b[off+4*j:], v)
			}
			binary.BigEndian.PutUint32(b[off+36:], uint32(st.Size))
		}
		off += (62 + n + 8) &^ 7
	}
	body := b[:len(b)-20]
	sum := sha1.Sum(body)
	if err := os.WriteFile(index, append(body, sum[:]...), 0o644); err != nil {
		t.Fatal(err)
	}
}

// An entry whose stat data was written to match a changed file (the
// object id left as it was) is named; one git itself refreshed, after a
// touch, or the file added again, is not.
func TestNewlyClaimed(t *testing.T) {
	ws := canon(t, t.TempDir())
	newRepo(t, ws)
	for _, n := range []string{"forged", "touched", "added", "same"} {
		os.WriteFile(filepath.Join(ws, n), []byte("one\n"), 0o644)
	}
	gitIn(t, ws, "add", ".")
	gitIn(t, ws, "commit", "-qm", "files")
	time.Sleep(1100 * time.Millisecond) // not racily clean
	p := protect(ws)
	if len(p.Trees) != 1 {
		t.Fatalf("trees %v", p.Trees)
	}
	os.WriteFile(filepath.Join(ws, "forged"), []byte("two\n"), 0o644)
	os.WriteFile(filepath.Join(ws, "added"), []byte("two\n"), 0o644)
	os.Chtimes(filepath.Join(ws, "touched"), time.Now(), time.Now())
	gitIn(t, ws, "add", "added")
	gitIn(t, ws, "status", "-s")
	time.Sleep(1100 * time.Millisecond)
	forgeStat(t, ws, "forged")
	got, err := NewlyClaimed(p.Trees[0])
	if err != nil || !reflect.DeepEqual(got, []string{"forged"}) {
		t.Errorf("claimed %q, %v; want forged", got, err)
	}
}

// layout is what the listing says git finds: the tests compare it with
// what discovery decides.
func (l *listing) layout() layout {
	switch {
	case !l.hasDotgit:
		return plain
	case l.dotgit.IsRegular():
		return dotgitFile
	}
	return dotgitDir
}
