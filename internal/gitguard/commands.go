package gitguard

import (
	"strings"
	"sync"
)

// kind is what a configuration variable's value is to git.
type kind int

const (
	kindOther   kind = iota
	kindPath         // a file or directory git reads or runs
	kindCommand      // a shell command line git runs
	kindInclude      // another configuration file
	kindRemote       // a remote's URL: a local path is a repository whose hooks a push runs
)

// pathVars and commandVars are the variables whose values git runs or
// reads as code, by section and name ("*" in the middle stands for any
// subsection); see git-config(1).
var (
	pathVars = map[string]bool{
		"core.hookspath": true, "core.attributesfile": true, "init.templatedir": true,
	}
	// commandVars is built on first use, not at every nsrun start.
	commandVars = sync.OnceValue(func() map[string]bool {
		return map[string]bool{
			"core.sshcommand": true, "core.pager": true, "core.editor": true, "core.askpass": true,
			"core.gitproxy": true, "core.fsmonitor": true, "sequence.editor": true,
			"interactive.difffilter": true, "diff.external": true, "diff.*.textconv": true,
			"diff.*.command": true, "filter.*.clean": true, "filter.*.smudge": true,
			"filter.*.process": true, "merge.*.driver": true, "credential.helper": true,
			"credential.*.helper": true, "gpg.program": true, "gpg.*.program": true,
			"gpg.ssh.defaultkeycommand": true, "pager.*": true, "difftool.*.cmd": true,
			"difftool.*.path": true, "mergetool.*.cmd": true, "mergetool.*.path": true,
			"browser.*.cmd": true, "browser.*.path": true, "man.*.cmd": true, "man.*.path": true,
			"remote.*.uploadpack": true, "remote.*.receivepack": true, "sendemail.smtpserver": true,
			"sendemail.*.smtpserver": true, "sendemail.tocmd": true, "sendemail.cccmd": true,
			"sendemail.headercmd": true, "sendemail.sendmailcmd": true, "sendemail.*.sendmailcmd": true,
			"sendemail.*.tocmd": true, "sendemail.*.cccmd": true, "sendemail.*.headercmd": true,
			"imap.tunnel": true, "core.alternaterefscommand": true, "trailer.*.command": true, "trailer.*.cmd": true,
			"uploadpack.packobjectshook": true, "instaweb.httpd": true, "guitool.*.cmd": true,
			// git archive's compressors; git-svn's; git-lfs's transfer
			// agents and extensions (lfs.customtransfer.NAME.path,
			// lfs.extension.NAME.clean), which it reads from git's
			// configuration.
			"tar.*.command": true, "svn.authorsprog": true,
			"lfs.*.path": true, "lfs.*.clean": true, "lfs.*.smudge": true,
		}
	})
)

// classify says what e's value is and which words of it may be paths.
func classify(e Entry) (kind, []string) {
	key := e.Section + "." + e.Name
	wild := e.Section + ".*." + e.Name
	if e.Sub == "" && e.Section == "pager" {
		// pager.<command> has the command as its name.
		wild = "pager.*"
	}
	switch {
	case e.NoValue:
		return kindOther, nil
	case (e.Section == "include" && e.Sub == "" || e.Section == "includeif") && e.Name == "path":
		return kindInclude, []string{e.Value}
	case e.Sub == "" && pathVars[key]:
		return kindPath, []string{e.Value}
	case e.Section == "remote" && e.Sub != "" && (e.Name == "url" || e.Name == "pushurl"):
		if p, ok := localURL(e.Value); ok {
			return kindRemote, []string{p}
		}
		return kindOther, nil
	case e.Section == "alias":
		if cmd, ok := strings.CutPrefix(e.Value, "!"); ok {
			return kindCommand, commandPaths(cmd)
		}
		return kindOther, nil
	case e.Section == "submodule" && e.Name == "update":
		if cmd, ok := strings.CutPrefix(e.Value, "!"); ok {
			return kindCommand, commandPaths(cmd)
		}
		return kindOther, nil
	case e.Sub == "" && commandVars()[key] || e.Sub != "" && commandVars()[wild] || wild == "pager.*" && commandVars()[wild]:
		if _, isBool := Bool(e); isBool {
			return kindOther, nil // core.fsmonitor=true, pager.log=false: no program named
		}
		return kindCommand, commandPaths(e.Value)
	}
	return kindOther, nil
}

// localURL says whether a remote's URL is a path on this machine (git's
// rule: a URL with "://" is a URL, file:// a path; without, a colon
// before the first slash makes it scp-like, host:path; anything else is
// a path), and gives that path.
func localURL(u string) (string, bool) {
	if rest, ok := strings.CutPrefix(u, "file://"); ok {
		return rest, rest != ""
	}
	if strings.Contains(u, "://") || u == "" {
		return "", false
	}
	if c := strings.IndexByte(u, ':'); c >= 0 && (strings.IndexByte(u, '/') < 0 || c < strings.IndexByte(u, '/')) {
		return "", false
	}
	return u, true
}

// commandPaths picks the words of a shell command line that name files:
// those with a slash in them, or starting with "~" or ".". A bare name is
// looked up in the host's PATH, not in the workspace.
func commandPaths(cmd string) []string {
	var out []string
	for _, w := range words(cmd) {
		if strings.ContainsRune(w, '/') || strings.HasPrefix(w, "~") || strings.HasPrefix(w, ".") {
			out = append(out, strings.TrimRight(w, "/"))
		}
	}
	return out
}

// words splits a command line roughly as a shell would: at blanks and
// operators, with quotes removed and assignments (VAR=value) split so
// their value counts as a word.
func words(cmd string) []string {
	var out []string
	var w strings.Builder
	flush := func() {
		s := w.String()
		w.Reset()
		if s == "" {
			return
		}
		if k, v, ok := strings.Cut(s, "="); ok && k != "" && !strings.ContainsAny(k, "/~.") {
			s = v
		}
		if s != "" {
			out = append(out, s)
		}
	}
	var quote byte
	for i := 0; i < len(cmd); i++ {
		c := cmd[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else {
				w.WriteByte(c)
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '\\' && i+1 < len(cmd):
			i++
			w.WriteByte(cmd[i])
		case strings.IndexByte(" \t\n;|&()<>`$", c) >= 0:
			flush()
		default:
			w.WriteByte(c)
		}
	}
	flush()
	return out
}
