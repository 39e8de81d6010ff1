package mounts

import "github.com/nsrun/nsrun/internal/mountinfo"

// Descendants returns the mounts below top (not top itself), parents
// before children.
func Descendants(entries []mountinfo.Entry, top int) []mountinfo.Entry {
	children := map[int][]mountinfo.Entry{}
	for _, e := range entries {
		if e.ID != e.Parent {
			children[e.Parent] = append(children[e.Parent], e)
		}
	}
	var out []mountinfo.Entry
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
