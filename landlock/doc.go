// Package landlock is nsrun's Landlock layer. So far it only reads the
// kernel's Landlock ABI version, for nsrun probe; the ruleset comes with
// issue 3.
//
// Kernel minimum: 5.13 (ABI 1); ABI 7 needs 6.15.
package landlock
