package plan

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/nsrun/nsrun/mounts"
)

func TestSymlinksAlong(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(base, "real", "ws", "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"link": "real", "real/ws/inner": "sub", "abs": filepath.Join(base, "real"),
		"chain": "link2", "link2": "real/ws"} {
		if err := os.Symlink(target, filepath.Join(base, link)); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		path string
		want []mounts.Link
	}{
		{filepath.Join(base, "real", "ws"), nil},
		{filepath.Join(base, "link", "ws", "inner"), []mounts.Link{
			{Path: filepath.Join(base, "link"), Target: "real"},
			{Path: filepath.Join(base, "real", "ws", "inner"), Target: "sub"},
		}},
		{filepath.Join(base, "abs", "ws"), []mounts.Link{{Path: filepath.Join(base, "abs"), Target: filepath.Join(base, "real")}}},
		{filepath.Join(base, "link", "missing", "x"), []mounts.Link{{Path: filepath.Join(base, "link"), Target: "real"}}},
		// A link to a link: both are on the way.
		{filepath.Join(base, "chain", "inner"), []mounts.Link{
			{Path: filepath.Join(base, "chain"), Target: "link2"},
			{Path: filepath.Join(base, "link2"), Target: "real/ws"},
			{Path: filepath.Join(base, "real", "ws", "inner"), Target: "sub"},
		}},
	} {
		got := SymlinksAlong(tc.path)
		for i, l := range got {
			fi, err := os.Lstat(l.Path)
			if err != nil || l.ID != Identity(fi) || l.ID == (mounts.Identity{}) {
				t.Errorf("%s: identity %+v", l.Path, l.ID)
			}
			got[i].ID = mounts.Identity{}
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("SymlinksAlong(%s):\n got %+v\nwant %+v", tc.path, got, tc.want)
		}
	}
}
