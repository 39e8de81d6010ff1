// Package errs words the failure of a step of nsrun's set-up one way,
// whichever package the step is in: the root package's SetupError, the
// planner's plan.Error and the running sandbox's sandbox.Error all read
// the same. Its Text names the library's settings (Policy.Isolation, not
// a command-line flag), and the nsrun command rewords it with its flags
// (Reword). It imports nothing of nsrun and works on every OS.
package errs

// Step is the text of a failed step: msg when it is set (a whole message
// of its own), else the step op and its cause err, either one alone when
// the other is missing.
func Step(op, msg string, err error) string {
	switch {
	case msg != "":
		return msg
	case err == nil:
		return op
	case op == "":
		return err.Error()
	}
	return op + ": " + err.Error()
}
