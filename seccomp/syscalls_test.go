package seccomp

import (
	"slices"
	"testing"
)

// Lookups binary-search the generated tables: they must stay sorted and
// free of duplicates.
func TestSyscallTablesAreSorted(t *testing.T) {
	for goarch, a := range arches {
		for i := 1; i < len(a.syscalls); i++ {
			if a.syscalls[i-1].name >= a.syscalls[i].name {
				t.Errorf("%s: %q before %q", goarch, a.syscalls[i-1].name, a.syscalls[i].name)
			}
		}
		if nr, ok := a.syscalls.lookup("socket"); !ok || nr != map[string]uint32{"amd64": 41, "arm64": 198}[goarch] {
			t.Errorf("%s: socket is %d, %v", goarch, nr, ok)
		}
		if _, ok := a.syscalls.lookup("no_such_call"); ok {
			t.Errorf("%s: found a call that does not exist", goarch)
		}
	}
	if !slices.IsSorted(anyArchSyscalls) || !onSomeArch("chown32") || onSomeArch("no_such_call") {
		t.Error("anyArchSyscalls")
	}
}
