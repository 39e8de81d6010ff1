package ns

import "fmt"

// NoID is the id the kernel reserves as invalid ((uid_t)-1); it can never be
// mapped.
const NoID = 1<<32 - 1

// CheckID reports whether id can be the single id mapped into a sandbox.
func CheckID(id int64) error {
	if id < 0 || id >= NoID {
		return fmt.Errorf("%d is outside the ids a user namespace can map (0 to %d)", id, NoID-1)
	}
	return nil
}
