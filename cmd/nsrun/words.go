package main

import "github.com/nsrun/nsrun/internal/errs"

// flags names, for each setting the library's errors name, the flag that
// gives it: the command's messages name its flags, not the library's
// fields.
var settingFlags = map[errs.Setting]string{
	errs.AllowBind:            "--allow-bind",
	errs.AllowConnect:         "--allow-connect",
	errs.AllowHost:            "--allow-host",
	errs.AllowHostUnixSockets: "--allow-host-unix-sockets",
	errs.AllowUserns:          "--allow-userns",
	errs.EnvPatterns:          "environment patterns (preset agent)",
	errs.FilteredNetwork:      "a filtered network (--allow-host, --publish, --host-port)",
	errs.HomeOwn:              "a home of the sandbox's own (presets agent and build)",
	errs.Hostname:             "--hostname",
	errs.HomeDir:              "--home",
	errs.HomePersistent:       "--home persistent",
	errs.HostPorts:            "--host-port",
	errs.IsolationFull:        "--isolation full",
	errs.IsolationLandlock:    "--isolation landlock",
	errs.KeepChanges:          "--keep-changes",
	errs.LandlockOff:          "--landlock off",
	errs.NetHost:              "--net host",
	errs.NetNone:              "--net none",
	errs.PortRules:            "port rules (--allow-connect, --allow-bind)",
	errs.ProcHost:             "--proc host",
	errs.ProtectGit:           "git protection (preset agent)",
	errs.ResourceLimits:       "resource limits (--memory, --pids, --cpu, --rlimit, --tmpfs-size)",
	errs.Root:                 "--root",
	errs.RuleBlockDevice:      "--dev-block",
	errs.RuleDeny:             "--deny",
	errs.RuleOverlay:          "--overlay",
	errs.RuleReadOnly:         "--ro",
	errs.RuleReadWrite:        "--rw",
	errs.RuleTmpfs:            "--tmpfs",
	errs.SeccompProfile:       "a seccomp profile (--seccomp)",
	errs.Strict:               "--strict",
	errs.SysHost:              "--sys host",
	errs.TraceDenials:         "--trace-denials",
	errs.TmpfsSize:            "--tmpfs-size",
	errs.TTYAlways:            "--tty always",
	errs.UIDGID:               "--uid and --gid",
}

// flagName is the flag of s.
func flagName(s errs.Setting) string {
	if f, ok := settingFlags[s]; ok {
		return f
	}
	return string(s)
}

// withFlags is msg, said of err, with the settings it names worded as
// flags.
func withFlags(msg string, err error) string {
	return errs.Reword(msg, err, flagName)
}
