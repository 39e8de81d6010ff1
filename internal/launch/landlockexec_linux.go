package launch

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/internal/errs"
	"github.com/nsrun/nsrun/internal/paths"
	"github.com/nsrun/nsrun/landlock"
)

// execError says why the payload could not be executed. Where it is the
// Landlock-only sandbox's exec rule, it names the file, the reason and the
// option that would allow it; EACCES alone sends users looking at file
// modes.
func execError(spec *Spec, path string, err error) error {
	plain := fmt.Errorf("exec %s: %w", spec.Args[0], err)
	if !errors.Is(err, unix.EACCES) || spec.Landlock == nil {
		return plain
	}
	file, ferr := filepath.EvalSymlinks(paths.Abs(path, spec.Dir))
	if ferr != nil {
		return plain
	}
	what := file
	if canExecute(spec, file) {
		// The file may run: its interpreter may not.
		interp := interpreter(file)
		if interp == "" || canExecute(spec, interp) {
			return plain
		}
		what = interp
	}
	var fs unix.Statfs_t
	if unix.Statfs(what, &fs) == nil && fs.Flags&unix.ST_NOEXEC != 0 {
		return fmt.Errorf("exec %s: %s is on a filesystem mounted noexec: %w", spec.Args[0], what, err)
	}
	subject := what
	if what != file {
		subject = "its interpreter " + what
	}
	var home string
	if spec.Supervisor != nil {
		home = spec.Supervisor.Home
	}
	return &execRefused{err: err, msg: errs.New(
		"exec %s: %s is not executable in %s, which runs programs only from %s and the %s and %s paths; %s makes it executable",
		spec.Args[0], subject, errs.IsolationLandlock, strings.Join(existingExecDirs(), ", "),
		errs.RuleReadOnly, errs.RuleReadWrite, errs.RuleReadOnly.With(execAdvice(what, home))).Error()}
}

// execRefused is the Landlock-only exec rule's refusal, said in full; its
// cause is the kernel's EACCES.
type execRefused struct {
	msg string
	err error
}

func (e *execRefused) Error() string { return e.msg }
func (e *execRefused) Unwrap() error { return e.err }

// canExecute reports whether the sandbox's Landlock rules let file run.
func canExecute(spec *Spec, file string) bool {
	return landlock.Allowed(spec.Landlock.Paths, file)&landlock.Execute != 0
}

// interpreter is the program a script's #! line names, resolved, or "".
func interpreter(file string) string {
	f, err := os.Open(file)
	if err != nil {
		return ""
	}
	defer f.Close()
	buf := make([]byte, 256)
	n, _ := f.Read(buf)
	line, _, _ := strings.Cut(string(buf[:n]), "\n")
	rest, ok := strings.CutPrefix(line, "#!")
	if !ok {
		return ""
	}
	fields := strings.Fields(rest)
	if len(fields) == 0 {
		return ""
	}
	p, err := filepath.EvalSymlinks(fields[0])
	if err != nil {
		return ""
	}
	return p
}

// execAdvice is the path a --ro rule should name to make file executable:
// under the caller's home, the tool's own directory there (~/.pyenv,
// ~/.cargo, ~/go), which its shims and versions share; elsewhere the
// file's directory.
func execAdvice(file, home string) string {
	if home != "" {
		if rest, ok := strings.CutPrefix(file, strings.TrimSuffix(home, "/")+"/"); ok {
			first, _, _ := strings.Cut(rest, "/")
			return filepath.Join(home, first)
		}
	}
	return filepath.Dir(file)
}

func existingExecDirs() []string {
	var out []string
	for _, d := range ExecDirs {
		if fi, err := os.Lstat(d); err == nil && fi.IsDir() {
			out = append(out, d)
		}
	}
	return out
}
