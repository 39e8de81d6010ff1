// Package procfs reads /proc/PID/status, the one parser of it the root and
// the mechanism packages share.
package procfs

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Status is a status file's fields by name, each value split on white
// space ("NSpid" has one id per PID namespace).
type Status map[string][]string

// ParseStatus reads the text of a status file.
func ParseStatus(text string) Status {
	st := Status{}
	for _, line := range strings.Split(text, "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok {
			st[k] = strings.Fields(v)
		}
	}
	return st
}

// ReadStatus reads /proc/PID/status (a thread's id works too).
func ReadStatus(pid int) (Status, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return nil, err
	}
	return ParseStatus(string(b)), nil
}

// Int is the field's first value as a decimal number, or its last with
// last set (the id in the innermost PID namespace); ok is false where the
// field is missing or not a number.
func (st Status) Int(field string, last bool) (n int, ok bool) {
	v := st[field]
	if len(v) == 0 {
		return 0, false
	}
	s := v[0]
	if last {
		s = v[len(v)-1]
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}
