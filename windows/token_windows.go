package windows

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"unsafe"

	"golang.org/x/sys/windows"
)

// advapi32's CreateRestrictedToken is not in golang.org/x/sys/windows.
var procCreateRestrictedToken = windows.NewLazySystemDLL("advapi32.dll").NewProc("CreateRestrictedToken")

// NewSandboxSID returns a fresh random SID under the resource manager
// authority, S-1-9-…, for one sandbox.
func NewSandboxSID() (*windows.SID, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, err
	}
	s := fmt.Sprintf("S-1-9-%d-%d-%d-%d", binary.LittleEndian.Uint32(b[0:]), binary.LittleEndian.Uint32(b[4:]),
		binary.LittleEndian.Uint32(b[8:]), binary.LittleEndian.Uint32(b[12:]))
	return windows.StringToSid(s)
}

// LogonSIDOf is the logon session's SID of token.
func LogonSIDOf(token windows.Token) (*windows.SID, error) {
	groups, err := token.GetTokenGroups()
	if err != nil {
		return nil, fmt.Errorf("GetTokenInformation TokenGroups: %w", err)
	}
	for _, g := range groups.AllGroups() {
		if g.Attributes&windows.SE_GROUP_LOGON_ID == windows.SE_GROUP_LOGON_ID {
			return g.Sid.Copy()
		}
	}
	return nil, fmt.Errorf("no logon SID in the process token")
}

// RestrictedToken makes a primary token from this process's with flags and
// the restricting SIDs.
func RestrictedToken(flags uint32, restricting []*windows.SID) (windows.Token, error) {
	var cur windows.Token
	access := uint32(windows.TOKEN_DUPLICATE | windows.TOKEN_ASSIGN_PRIMARY | windows.TOKEN_QUERY |
		windows.TOKEN_ADJUST_DEFAULT | windows.TOKEN_ADJUST_SESSIONID)
	if err := windows.OpenProcessToken(windows.CurrentProcess(), access, &cur); err != nil {
		return 0, fmt.Errorf("OpenProcessToken: %w", err)
	}
	defer cur.Close()
	sids := make([]windows.SIDAndAttributes, len(restricting))
	for i, s := range restricting {
		sids[i] = windows.SIDAndAttributes{Sid: s}
	}
	var out windows.Token
	r, _, err := procCreateRestrictedToken.Call(uintptr(cur), uintptr(flags), 0, 0, 0, 0,
		uintptr(len(sids)), uintptr(unsafe.Pointer(&sids[0])), uintptr(unsafe.Pointer(&out)))
	if r == 0 {
		return 0, fmt.Errorf("CreateRestrictedToken: %w", err)
	}
	return out, nil
}
