// Package windows is nsrun's Windows backend: the payload runs with a
// restricted token whose writes are confined to the writable roots.
//
// The token is made with CreateRestrictedToken(DISABLE_MAX_PRIVILEGE |
// LUA_TOKEN | WRITE_RESTRICTED) and three restricting SIDs: a fresh random
// SID for this sandbox, the logon SID and Everyone. WRITE_RESTRICTED is
// what makes it a sandbox: without it the restricting SIDs only gate
// reads, and writes go wherever the user may write (the failure the seeds
// describe). Each writable root, and the temp directory made for the
// sandbox, gets an inheritable ALLOW ACE with modify rights for the
// sandbox SID; read-only and denied paths inside them get DENY ACEs. The
// ACEs are written to a journal before they are applied and revoked after
// the payload exits; a journal left by a crash is replayed (revoked) on the
// next run. The payload starts suspended, joins a job object that kills
// it and everything it started when nsrun goes away, and is then resumed.
//
// MakePlan, the journal and WithTemp are pure and tested on Linux; the
// runner is in files with the _windows suffix: Launch builds the sandbox
// and starts the payload in it, Wait and Close end it and undo the ACEs.
//
// What it cannot do: reads are not confined (a Deny rule stops writes only);
// directories writable by Everyone or by the logon session stay writable;
// there is no network isolation, no PID isolation, no seccomp.
package windows
