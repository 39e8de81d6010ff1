package landlock

import (
	"fmt"
	"strings"
)

// Request is what a sandbox asks Landlock to handle: every right in it is
// denied unless a rule grants it.
type Request struct {
	FS    FS
	Net   Net
	Scope Scope
}

func (r Request) empty() bool { return r.FS == 0 && r.Net == 0 && r.Scope == 0 }

// Errata fixed by the kernel, as landlock_create_ruleset reports them (bit
// n-1 is erratum n). Without a fix the feature still applies, with a known
// hole, so it is reported as partial.
const (
	ErratumTCP          = 1 << 0 // erratum 1: TCP socket identification
	ErratumSignalScope  = 1 << 1 // erratum 2: scoped signal handling
	ErratumDisconnected = 1 << 2 // erratum 3: disconnected directories
)

// Decision is what a kernel can enforce of a Request, and why not the rest.
type Decision struct {
	Handled      Request  // Request ∩ what the kernel offers
	Status       string   // full, partial or none
	ABI          int      // the kernel's
	RequestedABI int      // the oldest ABI that could enforce the whole Request
	Dropped      []string // rights asked for and not enforced (or enforced with a known hole)
	Reason       string   // one line, empty when Status is full
}

// Decide intersects req with what a kernel of the given ABI version and
// errata can enforce. abi 0 means no Landlock at all.
func Decide(req Request, abi int, errata uint64) Decision {
	fs, net, scope := supported(abi)
	d := Decision{
		Handled:      Request{FS: req.FS & fs, Net: req.Net & net, Scope: req.Scope & scope},
		ABI:          abi,
		RequestedABI: minABI(req.FS, req.Net, req.Scope),
	}
	d.Dropped = append(d.Dropped, names(uint64(req.FS&^fs), fsNames)...)
	d.Dropped = append(d.Dropped, names(uint64(req.Net&^net), netNames)...)
	d.Dropped = append(d.Dropped, names(uint64(req.Scope&^scope), scopeNames)...)
	var holes []string
	if d.Handled.Net&(BindTCP|ConnectTCP) != 0 && errata&ErratumTCP == 0 {
		holes = append(holes, "tcp (erratum 1 not fixed)")
	}
	if d.Handled.Scope&Signal != 0 && errata&ErratumSignalScope == 0 {
		holes = append(holes, "signal (erratum 2 not fixed)")
	}
	if d.Handled.FS != 0 && errata&ErratumDisconnected == 0 {
		holes = append(holes, "filesystem (erratum 3 not fixed)")
	}
	d.Dropped = append(d.Dropped, holes...)
	switch {
	case req.empty():
		d.Status = "full"
	case d.Handled.empty():
		d.Status = "none"
		if abi == 0 {
			d.Reason = "the kernel has no Landlock (or it is not enabled at boot)"
		} else {
			d.Reason = fmt.Sprintf("Landlock ABI %d enforces none of what was asked (needs ABI %d)", abi, d.RequestedABI)
		}
	case len(d.Dropped) == 0:
		d.Status = "full"
	default:
		d.Status = "partial"
		d.Reason = fmt.Sprintf("Landlock ABI %d cannot enforce %s (needs ABI %d)", abi, strings.Join(d.Dropped, ", "), d.RequestedABI)
		if len(holes) > 0 && len(holes) == len(d.Dropped) {
			d.Reason = "the kernel lacks Landlock fixes for " + strings.Join(holes, ", ")
		}
	}
	return d
}
