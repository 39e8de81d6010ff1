package windows

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
)

// JournalName is the file name of the journal of the sandbox with SID sid
// that process pid runs: the pid tells a later run whether the journal's
// owner is still alive.
func JournalName(pid int, sid string) string {
	return fmt.Sprintf("journal-%d-%s.jsonl", pid, sid)
}

// StaleJournals are the journals among paths whose owner is no longer
// alive: a run that died left their ACEs behind. Names that are not
// journals are passed over.
func StaleJournals(paths []string, alive func(pid int) bool) []string {
	var out []string
	for _, p := range paths {
		base := filepath.Base(p)
		rest, ok := strings.CutPrefix(base, "journal-")
		if !ok || !strings.HasSuffix(base, ".jsonl") {
			continue
		}
		pidText, _, ok := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if !ok || err != nil || pid <= 0 || alive(pid) {
			continue
		}
		out = append(out, p)
	}
	return out
}
