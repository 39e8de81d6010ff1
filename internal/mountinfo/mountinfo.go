// Package mountinfo parses /proc/PID/mountinfo, the one parser the
// mechanism packages and the root share.
package mountinfo

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// Entry is one line of mountinfo (proc(5)).
type Entry struct {
	ID, Parent   int
	Root         string // the part of the filesystem mounted, unescaped
	MountPoint   string // unescaped, as seen from the reader's root
	FSType       string
	Source       string
	SuperOptions string // e.g. "rw,memory" for a cgroup v1 hierarchy
}

// Parse reads every line of a mountinfo file.
func Parse(r io.Reader) ([]Entry, error) {
	var out []Entry
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		e, err := parseLine(sc.Text())
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, sc.Err()
}

// Self reads /proc/self/mountinfo.
func Self() ([]Entry, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, fmt.Errorf("read the mount table: %w", err)
	}
	defer f.Close()
	return Parse(f)
}

// parseLine splits a line into its fields: "ID PARENT MAJ:MIN ROOT POINT
// OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPEROPTIONS".
func parseLine(line string) (Entry, error) {
	pre, post, _ := strings.Cut(line, " - ")
	f := strings.Fields(pre)
	if len(f) < 5 {
		return Entry{}, fmt.Errorf("mountinfo: short line %q", line)
	}
	id, err1 := strconv.Atoi(f[0])
	parent, err2 := strconv.Atoi(f[1])
	if err1 != nil || err2 != nil {
		return Entry{}, fmt.Errorf("mountinfo: bad ids in %q", line)
	}
	e := Entry{ID: id, Parent: parent, Root: unescape(f[3]), MountPoint: unescape(f[4])}
	if g := strings.Fields(post); len(g) >= 3 {
		e.FSType, e.Source, e.SuperOptions = g[0], unescape(g[1]), g[2]
	}
	return e, nil
}

// unescape undoes the kernel's \ooo escaping of space, tab, newline and
// backslash in mountinfo paths.
func unescape(s string) string {
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
