package mounts

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// MountEntry is one line of /proc/self/mountinfo.
type MountEntry struct {
	ID, Parent int
	MountPoint string // unescaped, as seen from the reader's root
}

// ParseMountinfo reads the mount ID, parent ID and mount point of each line.
func ParseMountinfo(r io.Reader) ([]MountEntry, error) {
	var out []MountEntry
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 5 {
			return nil, fmt.Errorf("mountinfo: short line %q", sc.Text())
		}
		id, err1 := strconv.Atoi(f[0])
		parent, err2 := strconv.Atoi(f[1])
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("mountinfo: bad ids in %q", sc.Text())
		}
		out = append(out, MountEntry{ID: id, Parent: parent, MountPoint: unescapeOctal(f[4])})
	}
	return out, sc.Err()
}

// Descendants returns the mounts below top (not top itself), parents
// before children.
func Descendants(entries []MountEntry, top int) []MountEntry {
	children := map[int][]MountEntry{}
	for _, e := range entries {
		if e.ID != e.Parent {
			children[e.Parent] = append(children[e.Parent], e)
		}
	}
	var out []MountEntry
	queue := []int{top}
	seen := map[int]bool{top: true}
	for len(queue) > 0 {
		id := queue[0]
		queue = queue[1:]
		for _, c := range children[id] {
			if !seen[c.ID] {
				seen[c.ID] = true
				out = append(out, c)
				queue = append(queue, c.ID)
			}
		}
	}
	return out
}

// unescapeOctal undoes the kernel's \ooo escaping of space, tab, newline
// and backslash in mountinfo paths.
func unescapeOctal(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
