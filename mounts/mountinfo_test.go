package mounts

import (
	"reflect"
	"strings"
	"testing"

	"github.com/nsrun/nsrun/internal/mountinfo"
)

const sampleMountinfo = `22 1 254:0 / / rw,relatime - ext4 /dev/vda rw
23 22 0:21 / /proc rw - proc proc rw
24 22 0:22 / /with\040space rw - tmpfs tmpfs rw
25 24 0:23 / /with\040space/inner rw - tmpfs tmpfs rw
30 1 0:30 / / ro - tmpfs tmpfs rw
31 30 0:31 / /tmp rw - tmpfs tmpfs rw
32 31 0:32 / /tmp/ws rw - ext4 /dev/vda rw
`

func TestDescendants(t *testing.T) {
	entries, err := mountinfo.Parse(strings.NewReader(sampleMountinfo))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 7 || entries[2].MountPoint != "/with space" || entries[3].Parent != 24 {
		t.Fatalf("parsed %+v", entries)
	}
	var got []int
	for _, e := range Descendants(entries, 22) {
		got = append(got, e.ID)
	}
	if want := []int{23, 24, 25}; !reflect.DeepEqual(got, want) {
		t.Errorf("descendants of 22: %v, want %v", got, want)
	}
	got = nil
	for _, e := range Descendants(entries, 30) {
		got = append(got, e.ID)
	}
	if want := []int{31, 32}; !reflect.DeepEqual(got, want) {
		t.Errorf("descendants of 30: %v, want %v", got, want)
	}
}
