// Package plan decides, on Linux, what a sandbox is made of: from a policy
// and command the root package has lowered into plain values (Request),
// and the few Facts of the sandbox started before it is planned, it
// computes a sandbox with namespaces (Full: the mount plan, the passwd
// and group entries, the Landlock ruleset, the seccomp filters) or a
// Landlock-only one (LandlockOnly: the grants, the supervisor's part),
// the init's spec and what the report says of them. It checks the input
// before anything touches the host (CheckRule, CheckInput), and judges
// the calls --trace-denials finds refused (Judge), keeping them counted
// and capped (DenialLog).
//
// Make is the one entry: it plans the home, asks the root package for what
// only it gives meaning to (Hooks.Lower: the rules made effective with the
// home's and git's, the environment after the policy's patterns), plans
// either kind of sandbox with its network and kept changes, and says what
// holds for both (PWD, --trace-denials' filters, the limits, the word on
// enforcement, refused under Strict when not full).
//
// It never starts, signals or reads a running sandbox: what it needs of
// one is handed in (Facts), what it needs made outside planning (the
// Landlock-only private /tmp) is made by the caller (Hooks.TmpDir), and
// its results are values the root package raises into its public Report
// and errors (Error).
//
// Its functions read the host's files (to stat, list and resolve paths),
// make the persistent home and the git identity file (MakeHome), and ask
// the kernel what it supports (the Landlock ABI, the seccomp host),
// nothing more. What the kernel cannot give is not planned around: it is
// refused (Error) or said in the report.
package plan
