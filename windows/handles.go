package windows

// invalidHandle is INVALID_HANDLE_VALUE, what a closed *os.File's Fd
// returns.
const invalidHandle = ^uintptr(0)

// StdPlan is how the payload's standard handles reach it. The caller's
// handles are never made inheritable: each distinct one in Dup is
// duplicated as an inheritable copy, the copies are the only handles the
// payload inherits (PROC_THREAD_ATTRIBUTE_HANDLE_LIST), and they are closed
// once it has started. Slot says, for stdin, stdout and stderr, which copy
// each gets (-1: none).
type StdPlan struct {
	Dup  []uintptr
	Slot [3]int
}

// PlanStd decides which of the caller's standard handles to duplicate. A
// handle given twice (stdout and stderr one file) is duplicated once, so
// the list names each handle once; a null or invalid handle is passed as
// none, since a null handle in the list makes Windows treat the whole
// list as empty, and so inherit nothing.
func PlanStd(std [3]uintptr) StdPlan {
	var p StdPlan
	for i, h := range std {
		p.Slot[i] = -1
		if h == 0 || h == invalidHandle {
			continue
		}
		for j, d := range p.Dup {
			if d == h {
				p.Slot[i] = j
			}
		}
		if p.Slot[i] < 0 {
			p.Slot[i] = len(p.Dup)
			p.Dup = append(p.Dup, h)
		}
	}
	return p
}
