package windows

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/windows"
)

// Session is the ACEs one sandbox adds: journaled before they are applied,
// revoked by Undo, and replayed by a later run if this one dies first.
type Session struct {
	sid     *windows.SID
	journal string
	entries []Entry
}

// NewSession makes a sandbox SID for a new session.
func NewSession() (*Session, error) {
	sid, err := NewSandboxSID()
	if err != nil {
		return nil, fmt.Errorf("sandbox SID: %w", err)
	}
	return &Session{sid: sid}, nil
}

// SID is the session's sandbox SID.
func (s *Session) SID() *windows.SID { return s.sid }

// Apply journals every ACE of plan, then applies them.
func (s *Session) Apply(plan Plan) error {
	dir, err := JournalDir()
	if err != nil {
		return err
	}
	s.journal = filepath.Join(dir, JournalName(os.Getpid(), s.sid.String()))
	for _, ace := range plan.ACEs {
		s.entries = append(s.entries, Entry{SID: s.sid.String(), Path: ace.Path})
	}
	f, err := os.Create(s.journal)
	if err != nil {
		return fmt.Errorf("ACE journal: %w", err)
	}
	err = EncodeJournal(f, s.entries)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("ACE journal: %w", err)
	}
	for _, ace := range plan.ACEs {
		if err := Apply(ace, s.sid); err != nil {
			return err
		}
	}
	return nil
}

// Token is the restricted token of plan for this session.
func (s *Session) Token(plan Plan) (windows.Token, error) {
	var cur windows.Token
	if err := windows.OpenProcessToken(windows.CurrentProcess(), windows.TOKEN_QUERY, &cur); err != nil {
		return 0, fmt.Errorf("OpenProcessToken: %w", err)
	}
	logon, err := LogonSIDOf(cur)
	cur.Close()
	if err != nil {
		return 0, err
	}
	everyone, err := windows.StringToSid("S-1-1-0")
	if err != nil {
		return 0, err
	}
	sids := map[SID]*windows.SID{SandboxSID: s.sid, LogonSID: logon, Everyone: everyone}
	var restricting []*windows.SID
	for _, k := range plan.RestrictingSIDs {
		restricting = append(restricting, sids[k])
	}
	return RestrictedToken(plan.TokenFlags, restricting)
}

// Undo revokes the session's ACEs and removes its journal; a journal
// whose ACEs could not all be revoked stays for the next run.
func (s *Session) Undo() {
	if s == nil || len(s.entries) == 0 {
		return
	}
	if left, _ := Replay(s.entries, revokeEntry); len(left) == 0 {
		os.Remove(s.journal)
	}
}

// ReplayStale revokes what runs that died left behind (journals of
// processes that no longer exist) and returns what it could not undo.
func ReplayStale() []error {
	dir, err := JournalDir()
	if err != nil {
		return nil
	}
	files, _ := filepath.Glob(filepath.Join(dir, "journal-*.jsonl"))
	var errs []error
	for _, f := range StaleJournals(files, func(pid int) bool { return alive(uint32(pid)) }) {
		data, err := os.Open(f)
		if err != nil {
			continue
		}
		entries, err := DecodeJournal(data)
		data.Close()
		if err != nil {
			errs = append(errs, fmt.Errorf("ACE journal %s: %w", f, err))
			continue
		}
		if left, rerrs := Replay(entries, revokeEntry); len(left) == 0 {
			os.Remove(f)
		} else {
			errs = append(errs, fmt.Errorf("ACE journal %s: %d entries could not be revoked: %v", f, len(left), rerrs))
		}
	}
	return errs
}

// JournalDir is where sessions keep their journals.
func JournalDir() (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(base, "nsrun")
	return dir, os.MkdirAll(dir, 0o700)
}

func revokeEntry(e Entry) error {
	sid, err := windows.StringToSid(e.SID)
	if err != nil {
		return err
	}
	err = Revoke(e.Path, sid)
	if errors.Is(err, windows.ERROR_FILE_NOT_FOUND) || errors.Is(err, windows.ERROR_PATH_NOT_FOUND) {
		return nil
	}
	return err
}

func alive(pid uint32) bool {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, pid)
	if err != nil {
		return false
	}
	defer windows.CloseHandle(h)
	var code uint32
	return windows.GetExitCodeProcess(h, &code) == nil && code == 259 // STILL_ACTIVE
}
