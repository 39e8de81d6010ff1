package darwin

import (
	"fmt"
	"path"
	"sort"
	"strings"
)

// Access is what a rule gives a path in the profile.
type Access int

const (
	// ReadOnly allows reading (inside a writable root: denies writes).
	ReadOnly Access = iota + 1
	// ReadWrite allows reading, writing and executing.
	ReadWrite
	// Deny refuses reading and writing.
	Deny
)

// Rule is one path of the policy, canonical (macOS real paths: /private/tmp,
// not /tmp).
type Rule struct {
	Path   string
	Access Access
}

// Input is everything a profile depends on.
type Input struct {
	// ReadRoots are readable (and executable); "/" for the host's root.
	ReadRoots []string
	// Rules are applied deepest last.
	Rules []Rule
	// TempDirs are writable and executable: the per-user temp dir, /private/tmp,
	// /private/var/folders.
	TempDirs []string
	// HostNet allows the network.
	HostNet bool
}

// Param is a -D NAME=VALUE argument of sandbox-exec.
type Param struct {
	Name, Value string
}

// Profile is the profile text and its parameters.
type Profile struct {
	Text   string
	Params []Param
}

// Args are the sandbox-exec arguments that pass the profile.
func (p Profile) Args() []string {
	args := []string{"-p", p.Text}
	for _, prm := range p.Params {
		args = append(args, "-D", prm.Name+"="+prm.Value)
	}
	return args
}

// services are the mach services name resolution, TLS, user lookup and
// logging need.
var services = []string{
	"com.apple.system.opendirectoryd.libinfo",
	"com.apple.system.DirectoryService.libinfo_v1",
	"com.apple.system.notification_center",
	"com.apple.system.logger",
	"com.apple.logd",
	"com.apple.trustd",
	"com.apple.trustd.agent",
	"com.apple.SecurityServer",
	"com.apple.ocspd",
	"com.apple.mDNSResponder",
	"com.apple.dnssd.service",
	"com.apple.coreservices.launchservicesd",
}

// Firmlinks are the top-level symlinks of macOS; profiles need real paths.
var firmlinks = map[string]string{"/tmp": "/private/tmp", "/var": "/private/var", "/etc": "/private/etc"}

// RealPath maps a path under /tmp, /var or /etc to its /private one.
func RealPath(p string) string {
	for link, real := range firmlinks {
		if p == link || strings.HasPrefix(p, link+"/") {
			return real + strings.TrimPrefix(p, link)
		}
	}
	return p
}

type gen struct {
	b      strings.Builder
	params []Param
	byPath map[string]string
}

// param returns the parameter for a path, one per distinct path.
func (g *gen) param(p string) string {
	if name, ok := g.byPath[p]; ok {
		return name
	}
	name := fmt.Sprintf("P%d", len(g.params))
	g.params = append(g.params, Param{Name: name, Value: p})
	g.byPath[p] = name
	return name
}

func (g *gen) line(format string, a ...any) { fmt.Fprintf(&g.b, format+"\n", a...) }

// Generate makes the profile of in.
func Generate(in Input) Profile {
	g := &gen{byPath: map[string]string{}}
	g.line("(version 1)")
	g.line("(deny default)")
	g.line("(allow process-fork)")
	g.line("(allow signal (target same-sandbox))")
	g.line("(allow sysctl-read)")
	g.line("(allow ipc-posix-shm ipc-posix-sem)")
	g.line("(allow pseudo-tty)")
	g.line("(allow file-read* file-write* file-ioctl (literal \"/dev/ptmx\") (regex #\"^/dev/ttys[0-9]+$\") (literal \"/dev/tty\"))")
	g.line("(allow file-read* file-write* (literal \"/dev/null\") (literal \"/dev/zero\") (literal \"/dev/dtracehelper\"))")
	g.line("(allow file-read* (literal \"/dev/random\") (literal \"/dev/urandom\"))")
	g.line("(allow file-read-metadata)")
	var lookups []string
	for _, s := range services {
		lookups = append(lookups, fmt.Sprintf("(global-name %q)", s))
	}
	g.line("(allow mach-lookup %s)", strings.Join(lookups, " "))
	if in.HostNet {
		g.line("(allow network*)")
		g.line("(allow system-socket)")
	}
	for _, r := range in.ReadRoots {
		g.line("(allow file-read* process-exec (subpath (param %q)))", g.param(RealPath(r)))
	}
	for _, t := range in.TempDirs {
		g.line("(allow file-read* file-write* process-exec (subpath (param %q)))", g.param(RealPath(t)))
	}
	rules := append([]Rule(nil), in.Rules...)
	for i := range rules {
		rules[i].Path = RealPath(rules[i].Path)
	}
	sort.SliceStable(rules, func(i, j int) bool { return depth(rules[i].Path) < depth(rules[j].Path) })
	for _, r := range rules {
		p := g.param(r.Path)
		switch r.Access {
		case ReadWrite:
			g.line("(allow file-read* file-write* process-exec (subpath (param %q)))", p)
		case ReadOnly:
			g.line("(allow file-read* process-exec (subpath (param %q)))", p)
			g.line("(deny file-write* (subpath (param %q)))", p)
		case Deny:
			g.line("(deny file-read* file-write* process-exec (subpath (param %q)))", p)
			// A denied path must not be renamed away, nor an ancestor.
			var ups []string
			for d := path.Dir(r.Path); d != "/"; d = path.Dir(d) {
				ups = append(ups, fmt.Sprintf("(literal (param %q))", g.param(d)))
			}
			if len(ups) > 0 {
				g.line("(deny file-write-unlink %s)", strings.Join(ups, " "))
			}
		}
	}
	return Profile{Text: g.b.String(), Params: g.params}
}

func depth(p string) int {
	if p == "/" {
		return 0
	}
	return strings.Count(p, "/")
}
