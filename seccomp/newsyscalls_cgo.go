//go:build linux && cgo

package seccomp

// newSyscalls are calls newer than what Debian's libseccomp 2.5.4 can name
// (it stops at futex_wake, 454). Since Linux 5.1 new calls have one number
// on every architecture, so the native number is this one.
var newSyscalls = map[string]int{
	"futex_wait":        455,
	"futex_requeue":     456,
	"statmount":         457,
	"listmount":         458,
	"lsm_get_self_attr": 459,
	"lsm_set_self_attr": 460,
	"lsm_list_modules":  461,
	"mseal":             462,
	"setxattrat":        463,
	"getxattrat":        464,
	"listxattrat":       465,
	"removexattrat":     466,
	"open_tree_attr":    467,
	"file_getattr":      468,
	"file_setattr":      469,
}
