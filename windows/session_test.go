package windows

import (
	"reflect"
	"testing"
)

func TestStaleJournals(t *testing.T) {
	live := map[int]bool{10: true}
	paths := []string{
		"/c/nsrun/" + JournalName(10, "S-1-5-21-1"), // its owner runs
		"/c/nsrun/" + JournalName(11, "S-1-5-21-2"), // stale
		"/c/nsrun/journal-x-S-1.jsonl",              // not a pid
		"/c/nsrun/journal-12.jsonl",                 // no SID
		"/c/nsrun/other-13-S-1.jsonl",               // not a journal
		"/c/nsrun/journal-0-S-1.jsonl",              // no such pid
	}
	got := StaleJournals(paths, func(pid int) bool { return live[pid] })
	if want := []string{"/c/nsrun/journal-11-S-1-5-21-2.jsonl"}; !reflect.DeepEqual(got, want) {
		t.Errorf("stale %q, want %q", got, want)
	}
}
