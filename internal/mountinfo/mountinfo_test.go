package mountinfo

import (
	"reflect"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	in := `22 1 0:21 / / rw,relatime shared:1 - ext4 /dev/sda1 rw
35 22 0:32 /outer /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
40 22 0:37 / /mnt/a\040b rw master:3 - tmpfs none\040x rw,size=4k`
	got, err := Parse(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []Entry{
		{ID: 22, Parent: 1, Root: "/", MountPoint: "/", FSType: "ext4", Source: "/dev/sda1", SuperOptions: "rw"},
		{ID: 35, Parent: 22, Root: "/outer", MountPoint: "/sys/fs/cgroup/memory", FSType: "cgroup", Source: "cgroup", SuperOptions: "rw,memory"},
		{ID: 40, Parent: 22, Root: "/", MountPoint: "/mnt/a b", FSType: "tmpfs", Source: "none x", SuperOptions: "rw,size=4k"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Parse:\n got %+v\nwant %+v", got, want)
	}
	for _, bad := range []string{"1 2 3", "x 1 0:1 / / rw - ext4 a rw"} {
		if _, err := Parse(strings.NewReader(bad)); err == nil {
			t.Errorf("Parse(%q) succeeded", bad)
		}
	}
}

func TestSelfHasARoot(t *testing.T) {
	es, err := Self()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		if e.MountPoint == "/" {
			return
		}
	}
	t.Errorf("no mount at / in %d entries", len(es))
}
