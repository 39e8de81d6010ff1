package landlock

import (
	"path"
	"sort"
	"strings"
)

// Grant asks for Access on Path and everything below it, down to a deeper
// Grant. Access 0 is a hole: no rights there.
type Grant struct {
	Path   string // clean and absolute
	Access FS
	Dir    bool
	ID     Identity // of the file the caller checked, when known
	// Unlisted: when carving, the directories on the way to this hole get
	// no read_dir either (unless Access has it), so that its names cannot
	// be listed; those directories then cannot be listed themselves.
	Unlisted bool
}

// Identity is a file's device and inode. Apply refuses a rule whose path
// names another file by then; the zero value is not checked.
type Identity struct {
	Dev, Ino uint64
}

// Entry is one name in a directory.
type Entry struct {
	Name    string
	Dir     bool
	Symlink bool
	ID      Identity
}

// Lister lists a directory; Rules calls it only when carving.
type Lister func(dir string) ([]Entry, error)

// PathRule is one Landlock rule: Access on Path and beneath.
type PathRule struct {
	Path   string
	Access FS
	Dir    bool
	ID     Identity
}

// Rules turns grants into Landlock rules, with rights limited to handled
// and files given file rights only.
//
// Landlock only adds rights along a path, so a grant with a deeper grant
// of fewer rights (a hole: a deny, or read-only inside writable) cannot be
// made as asked. Without carve, such grants are made anyway: the mounts
// enforce the hole and Landlock is defence in depth. With carve, the
// outer grant is given instead to each entry of the directories along the
// way to the hole (symlinks get nothing), so the hole really has fewer
// rights. The directories along the way keep what cannot reach into the
// hole (see Way): they can be listed, and read where the hole can be, but
// nothing can be created, removed or renamed directly in them.
func Rules(grants []Grant, handled FS, carve bool, list Lister) ([]PathRule, error) {
	byPath := byPath(grants, handled)
	paths := make([]string, 0, len(byPath))
	for p := range byPath {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	if !carve {
		var out []PathRule
		for _, p := range paths {
			// A rule that adds nothing to what the path inherits is left
			// out: 1,000 read-only binds under a writable one would cost
			// 1,000 opens and rules otherwise.
			if g := byPath[p]; g.Access&^inherited(byPath, p) != 0 {
				out = append(out, PathRule{Path: p, Access: g.Access, Dir: g.Dir, ID: g.ID})
			}
		}
		return out, nil
	}
	c := carver{grants: byPath, paths: paths, list: list}
	for _, p := range paths {
		if c.outermost(p) {
			if err := c.place(byPath[p], 0); err != nil {
				return nil, err
			}
		}
	}
	return c.out, nil
}

// byPath indexes grants by path, with rights limited to handled and files
// given file rights only; a later grant for a path replaces an earlier one.
func byPath(grants []Grant, handled FS) map[string]Grant {
	out := make(map[string]Grant, len(grants))
	for _, g := range grants {
		g.Access &= handled
		if !g.Dir {
			g.Access &= FileRights
		}
		out[g.Path] = g
	}
	return out
}

// inherited is the union of the rights granted above p: Landlock adds a
// path's rules up to the root, across mount points.
func inherited(grants map[string]Grant, p string) FS {
	var fs FS
	for d := p; d != "/"; {
		d = path.Dir(d)
		fs |= grants[d].Access
	}
	return fs
}

type carver struct {
	grants map[string]Grant
	paths  []string // sorted
	list   Lister
	out    []PathRule
}

func below(p, base string) bool {
	return base == "/" && p != "/" || strings.HasPrefix(p, base+"/")
}

// outermost reports whether no other grant covers p.
func (c *carver) outermost(p string) bool {
	for d := p; d != "/"; {
		d = path.Dir(d)
		if _, ok := c.grants[d]; ok {
			return false
		}
	}
	return true
}

// descendants returns the grants strictly below p.
func (c *carver) descendants(p string) []Grant {
	i := sort.SearchStrings(c.paths, p)
	var out []Grant
	for ; i < len(c.paths); i++ {
		q := c.paths[i]
		if q == p {
			continue
		}
		if !below(q, p) {
			if !strings.HasPrefix(q, p) {
				break
			}
			continue
		}
		out = append(out, c.grants[q])
	}
	return out
}

// place makes g hold, given the rights inherited from rules above it.
func (c *carver) place(g Grant, inherited FS) error {
	desc := c.descendants(g.Path)
	hole := false
	for _, d := range desc {
		if g.Access&^d.Access != 0 {
			hole = true
			break
		}
	}
	if !hole || !g.Dir {
		if add := g.Access &^ inherited; add != 0 {
			c.out = append(c.out, PathRule{Path: g.Path, Access: add, Dir: g.Dir, ID: g.ID})
		}
		for _, d := range direct(desc) {
			if err := c.place(d, inherited|g.Access); err != nil {
				return err
			}
		}
		return nil
	}
	entries, err := c.list(g.Path)
	if err != nil {
		return err
	}
	if add := Way(g, desc) &^ inherited; add != 0 {
		c.out = append(c.out, PathRule{Path: g.Path, Access: add, Dir: true, ID: g.ID})
		inherited |= add
	}
	for _, e := range entries {
		if e.Symlink {
			continue
		}
		child := path.Join(g.Path, e.Name)
		if cg, ok := c.grants[child]; ok {
			if err := c.place(cg, inherited); err != nil {
				return err
			}
			continue
		}
		sub := Grant{Path: child, Access: g.Access, Dir: e.Dir, ID: e.ID}
		if !e.Dir {
			sub.Access &= FileRights
		}
		if len(c.descendants(child)) > 0 {
			if err := c.place(sub, inherited); err != nil {
				return err
			}
			continue
		}
		if add := sub.Access &^ inherited; add != 0 {
			c.out = append(c.out, PathRule{Path: child, Access: add, Dir: e.Dir, ID: e.ID})
		}
	}
	return nil
}

// Way is what a directory granted g keeps on its way to the holes below
// it (the grants of desc with fewer rights): a right on a directory
// reaches everything beneath, so it keeps only the file rights every hole
// has, and read_dir. The rights that create, remove or rename entries
// would let a hole be replaced, so they go. read_dir stays even above a
// denied directory, whose names can then be listed (not its files read):
// otherwise "/" could not be listed as soon as anything under it is
// denied, nor a workspace holding a denied file. Above an Unlisted hole
// it goes too.
func Way(g Grant, desc []Grant) FS {
	way := g.Access & (FileRights | ReadDir)
	for _, d := range desc {
		if g.Access&^d.Access == 0 {
			continue
		}
		keep := d.Access&FileRights | ReadDir
		if d.Unlisted {
			keep = d.Access & (FileRights | ReadDir)
		}
		way &= keep
	}
	return way
}

// direct returns the grants of desc that no other grant of desc covers.
func direct(desc []Grant) []Grant {
	var out []Grant
	for _, d := range desc {
		covered := false
		for _, e := range desc {
			if below(d.Path, e.Path) {
				covered = true
				break
			}
		}
		if !covered {
			out = append(out, d)
		}
	}
	return out
}

// Narrow is a directory that gets fewer rights than its grant gives, on
// the way to a hole below it: Landlock cannot keep a right given there
// from reaching the hole (see Way).
type Narrow struct {
	Dir   string
	Lost  FS       // of its grant's rights, those it does not get
	Holes []string // the holes below it
}

// Narrowed lists, for grants as Rules carves them, the directories that
// lose rights on the way to holes, outermost first: the grants with holes
// below them and the directories between them and each hole.
func Narrowed(grants []Grant, handled FS) []Narrow {
	byPath := byPath(grants, handled)
	owner := func(p string) (Grant, bool) {
		for d := p; ; d = path.Dir(d) {
			if g, ok := byPath[d]; ok && g.Dir {
				return g, true
			}
			if d == "/" {
				return Grant{}, false
			}
		}
	}
	dirs := map[string]bool{}
	for p := range byPath {
		for d := path.Dir(p); ; d = path.Dir(d) {
			dirs[d] = true
			if _, ok := byPath[d]; ok || d == "/" {
				break
			}
		}
	}
	var out []Narrow
	for d := range dirs {
		g, ok := owner(d)
		if !ok {
			continue
		}
		var desc []Grant
		var holes []string
		for p, h := range byPath {
			if below(p, d) {
				desc = append(desc, h)
				if g.Access&^h.Access != 0 {
					holes = append(holes, p)
				}
			}
		}
		if len(holes) == 0 {
			continue
		}
		if lost := g.Access &^ Way(Grant{Path: d, Access: g.Access, Dir: true}, desc); lost != 0 {
			sort.Strings(holes)
			out = append(out, Narrow{Dir: d, Lost: lost, Holes: holes})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Dir < out[j].Dir })
	return out
}
