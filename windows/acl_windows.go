package windows

import (
	"fmt"

	"golang.org/x/sys/windows"
)

// Apply adds ace for sid to the DACL of ace.Path.
func Apply(ace ACE, sid *windows.SID) error {
	mode := windows.GRANT_ACCESS
	if ace.Kind == Deny {
		mode = windows.DENY_ACCESS
	}
	return setEntry(ace.Path, windows.EXPLICIT_ACCESS{
		AccessPermissions: windows.ACCESS_MASK(ace.Rights),
		AccessMode:        windows.ACCESS_MODE(mode),
		Inheritance:       ace.Inherit,
		Trustee:           trustee(sid),
	})
}

// Revoke removes every ACE for sid from the DACL of path.
func Revoke(path string, sid *windows.SID) error {
	return setEntry(path, windows.EXPLICIT_ACCESS{AccessMode: windows.REVOKE_ACCESS, Trustee: trustee(sid)})
}

func trustee(sid *windows.SID) windows.TRUSTEE {
	return windows.TRUSTEE{TrusteeForm: windows.TRUSTEE_IS_SID, TrusteeType: windows.TRUSTEE_IS_UNKNOWN,
		TrusteeValue: windows.TrusteeValueFromSID(sid)}
}

func setEntry(path string, e windows.EXPLICIT_ACCESS) error {
	sd, err := windows.GetNamedSecurityInfo(path, windows.SE_FILE_OBJECT, windows.DACL_SECURITY_INFORMATION)
	if err != nil {
		return fmt.Errorf("GetNamedSecurityInfo %s: %w", path, err)
	}
	dacl, _, err := sd.DACL()
	if err != nil {
		return fmt.Errorf("DACL of %s: %w", path, err)
	}
	acl, err := windows.ACLFromEntries([]windows.EXPLICIT_ACCESS{e}, dacl)
	if err != nil {
		return fmt.Errorf("SetEntriesInAcl %s: %w", path, err)
	}
	if err := windows.SetNamedSecurityInfo(path, windows.SE_FILE_OBJECT, windows.DACL_SECURITY_INFORMATION, nil, nil, acl, nil); err != nil {
		return fmt.Errorf("SetNamedSecurityInfo %s: %w", path, err)
	}
	return nil
}
