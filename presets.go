package nsrun

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/nsrun/nsrun/internal/errs"
	"github.com/nsrun/nsrun/internal/paths"
)

// Credential is a place under a home directory where a tool keeps
// credentials; the agent preset hides each that exists.
type Credential struct {
	Tool string
	Path string // relative to the home directory
}

// Credentials are the credential stores the agent preset hides, under
// every home directory of the caller.
var Credentials = []Credential{
	{"ssh", ".ssh"}, {"gnupg", ".gnupg"}, {"password-store", ".password-store"},
	{"keyrings", ".local/share/keyrings"}, {"keyrings", ".gnome2/keyrings"}, {"kwallet", ".local/share/kwalletd"},
	{"git", ".git-credentials"}, {"git", ".config/git/credentials"}, {"netrc", ".netrc"}, {"netrc", "_netrc"},
	{"gh", ".config/gh"}, {"hub", ".config/hub"}, {"glab", ".config/glab-cli"}, {"tea", ".config/tea"},
	{"cargo", ".cargo/credentials"}, {"cargo", ".cargo/credentials.toml"},
	{"pypi", ".pypirc"}, {"pip", ".config/pip/pip.conf"}, {"pip", ".pip/pip.conf"}, {"poetry", ".config/pypoetry/auth.toml"},
	{"npm", ".npmrc"}, {"yarn", ".yarnrc"}, {"yarn", ".yarnrc.yml"}, {"pnpm", ".config/pnpm/rc"}, {"bun", ".bunfig.toml"},
	{"gem", ".gem/credentials"}, {"gem", ".local/share/gem/credentials"}, {"bundler", ".bundle/config"},
	{"composer", ".composer/auth.json"}, {"composer", ".config/composer/auth.json"}, {"nuget", ".nuget/NuGet/NuGet.Config"},
	{"docker", ".docker"}, {"podman", ".config/containers/auth.json"}, {"kube", ".kube"}, {"helm", ".config/helm"},
	{"gcloud", ".config/gcloud"}, {"azure", ".azure"}, {"aws", ".aws"}, {"oci", ".oci"}, {"ibmcloud", ".bluemix"},
	{"doctl", ".config/doctl"}, {"fly", ".fly"}, {"heroku", ".netrc-heroku"}, {"vercel", ".local/share/com.vercel.cli"},
	{"netlify", ".config/netlify"}, {"cloudflare", ".cloudflared"}, {"wrangler", ".wrangler"},
	{"terraform", ".terraform.d/credentials.tfrc.json"}, {"terraform", ".terraformrc"}, {"vault", ".vault-token"},
	{"1password", ".config/op"}, {"sops", ".config/sops"}, {"age", ".config/age"}, {"rclone", ".config/rclone"},
	{"s3cmd", ".s3cfg"}, {"boto", ".boto"}, {"minio", ".mc"},
	{"maven", ".m2/settings.xml"}, {"maven", ".m2/settings-security.xml"}, {"gradle", ".gradle/gradle.properties"},
	{"sbt", ".sbt/credentials"}, {"ivy", ".ivy2/.credentials"},
	{"postgres", ".pgpass"}, {"mysql", ".my.cnf"}, {"mysql", ".mylogin.cnf"},
	{"claude", ".claude"}, {"claude", ".claude.json"}, {"codex", ".codex"}, {"gemini", ".gemini"},
	{"cursor", ".cursor"}, {"copilot", ".config/github-copilot"}, {"aider", ".aider.conf.yml"},
	{"continue", ".continue"}, {"codeium", ".codeium"}, {"opencode", ".local/share/opencode"},
	{"openai", ".config/openai"}, {"huggingface", ".cache/huggingface/token"}, {"huggingface", ".huggingface"},
	{"history", ".bash_history"}, {"history", ".zsh_history"}, {"history", ".zhistory"}, {"history", ".histfile"},
	{"history", ".sh_history"}, {"history", ".local/share/fish/fish_history"}, {"history", ".local/share/atuin"},
	{"history", ".python_history"}, {"history", ".node_repl_history"}, {"history", ".psql_history"},
	{"history", ".mysql_history"}, {"history", ".sqlite_history"}, {"history", ".irb_history"},
	{"history", ".rediscli_history"}, {"history", ".lesshst"}, {"history", ".Rhistory"}, {"history", ".php_history"},
}

// Presets are the names Preset knows.
var Presets = map[string]string{
	"agent":    "a coding agent's tool call: the workspace writable, git in it protected, credentials hidden from files and the environment, a persistent HOME of nsrun's, no network",
	"build":    "a build: the workspace writable, a persistent HOME of nsrun's, the host's network",
	"readonly": "nothing writable but the private /tmp, no network",
}

// Homes are the caller's home directories: the password database's for
// its uid and $HOME, both when they differ (credentials are hidden under
// each), canonical, the first existing one first.
func Homes() []string { return paths.Homes() }

// WorkspaceError is a workspace a preset refuses to make writable.
type WorkspaceError struct {
	Dir, Why string
}

func (e *WorkspaceError) Error() string {
	return errs.New("the current directory %s is %s, not a project: run from a project's directory, or name what to make writable with %s", e.Dir, e.Why, errs.RuleReadWrite.With("DIR")).Error()
}

// systemDirs are the top-level directories of a Linux or macOS system.
var systemDirs = []string{"/bin", "/boot", "/dev", "/etc", "/home", "/lib", "/lib32", "/lib64", "/libx32", "/media",
	"/mnt", "/opt", "/proc", "/root", "/run", "/sbin", "/srv", "/sys", "/tmp", "/usr", "/var",
	"/Applications", "/Library", "/System", "/Users", "/Volumes", "/private"}

// CheckWorkspace refuses a directory that is no project to make writable
// whole: the root, a home directory or one of its ancestors, a top-level
// system directory. dir and homes are canonical.
func CheckWorkspace(dir string, homes []string) error {
	if dir == "/" {
		return &WorkspaceError{Dir: dir, Why: "the root"}
	}
	for _, h := range homes {
		switch {
		case dir == h:
			return &WorkspaceError{Dir: dir, Why: "your home directory"}
		case strings.HasPrefix(h, dir+"/"):
			return &WorkspaceError{Dir: dir, Why: "an ancestor of your home directory " + h}
		}
	}
	for _, s := range systemDirs {
		if dir == s {
			return &WorkspaceError{Dir: dir, Why: "a system directory"}
		}
	}
	return nil
}

// Preset returns the named preset for a workspace and the caller's home
// directories (Homes). Its rules have the baseline source, so the
// caller's own rules override them. The agent and build presets refuse,
// with a *WorkspaceError, a workspace CheckWorkspace refuses; an empty
// workspace makes nothing writable (the caller names what is).
func Preset(name, workspace string, homes ...string) (*Policy, error) {
	p := &Policy{}
	switch name {
	case "agent", "build":
		if workspace != "" {
			if err := CheckWorkspace(workspace, homes); err != nil {
				return nil, err
			}
			p.Rules = append(p.Rules, Rule{Path: workspace, Access: ReadWrite, Source: SourceBaseline})
		}
		p.Home = HomePersistent
		if len(homes) > 0 {
			p.HomeDir = StateDir(homes[0], name, "home")
		}
		if name == "build" {
			p.Net = NetHost
			break
		}
		p.ProtectGit = true
		p.UnsetEnv, p.KeepEnv = append([]string(nil), SecretEnv...), append([]string(nil), SecretEnvKept...)
		for _, h := range homes {
			for _, c := range Credentials {
				path := filepath.Join(h, c.Path)
				if _, err := os.Lstat(path); err == nil {
					p.Rules = append(p.Rules, Rule{Path: path, Access: Deny, Source: SourceBaseline})
				}
			}
		}
	case "readonly":
	default:
		names := make([]string, 0, len(Presets))
		for n := range Presets {
			names = append(names, n)
		}
		sort.Strings(names)
		return nil, fmt.Errorf("unknown preset %q (known: %s)", name, strings.Join(names, ", "))
	}
	return p, nil
}

// StateDir is where nsrun keeps state of its own for the user whose home
// is home: $XDG_STATE_HOME/nsrun, else HOME/.local/state/nsrun, with the
// given names below it.
func StateDir(home string, names ...string) string {
	base := filepath.Join(home, ".local", "state")
	if x := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(x) {
		base = x
	}
	return filepath.Join(append([]string{base, "nsrun"}, names...)...)
}
