package launch

// The statuses a stage fails with, the library's ExitSetup,
// ExitNotExecutable and ExitNotFound (a test in the root keeps them equal).
const (
	ExitSetup         = 125 // the sandbox could not be built; nothing ran
	ExitNotExecutable = 126 // the command exists but cannot be executed
	ExitNotFound      = 127 // the command was not found inside the sandbox
)
