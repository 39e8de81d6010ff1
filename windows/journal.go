package windows

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
)

// Entry is one ACE a sandbox added, recorded before it is applied so that
// it can be revoked even if nsrun dies.
type Entry struct {
	SID  string `json:"sid"` // the sandbox SID, S-1-...
	Path string `json:"path"`
}

// EncodeJournal writes entries, one JSON object a line.
func EncodeJournal(w io.Writer, entries []Entry) error {
	enc := json.NewEncoder(w)
	for _, e := range entries {
		if err := enc.Encode(e); err != nil {
			return err
		}
	}
	return nil
}

// DecodeJournal reads a journal. A last line cut short by a crash is
// ignored; any other bad line is an error.
func DecodeJournal(r io.Reader) ([]Entry, error) {
	var out []Entry
	sc := bufio.NewScanner(r)
	var pending error
	for n := 1; sc.Scan(); n++ {
		if pending != nil {
			return nil, pending
		}
		var e Entry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil || e.SID == "" || e.Path == "" {
			pending = fmt.Errorf("journal line %d: not an entry", n)
			continue
		}
		out = append(out, e)
	}
	return out, sc.Err()
}

// Replay revokes every entry with revoke, and returns the entries it could
// not revoke (to keep in the journal). A path that is gone is revoked.
func Replay(entries []Entry, revoke func(Entry) error) (left []Entry, errs []error) {
	for _, e := range entries {
		if err := revoke(e); err != nil {
			left = append(left, e)
			errs = append(errs, fmt.Errorf("revoke %s on %s: %w", e.SID, e.Path, err))
		}
	}
	return left, errs
}
