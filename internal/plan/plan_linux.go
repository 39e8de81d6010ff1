package plan

import (
	"path"

	"github.com/nsrun/nsrun/mounts"
)

// FullReport is what a sandbox with namespaces reports of its namespaces
// and filesystem, from its mount plan: hostNet says the network namespace
// is the host's, as asked.
func FullReport(mp *mounts.Plan, hostNet bool) (NamespaceReport, FilesystemReport) {
	ns := NamespaceReport{User: true, Mount: true, PID: true, IPC: true, UTS: true, Net: !hostNet, Cgroup: true}
	r := FilesystemReport{Root: mp.Root.Source, RW: []string{}, RO: []string{}, Deny: []string{}, Tmpfs: []string{}, Proc: "private", Sys: "private"}
	if !mp.Root.ReadOnly {
		r.RW = append(r.RW, "/")
	}
	r.RO = append(r.RO, mp.Unchanged...)
	r.Created = mp.Created
	if mp.Root.Kind == mounts.OpOverlay {
		r.Overlay = append(r.Overlay, "/")
	}
	for _, op := range mp.Ops {
		if op.Kind == mounts.OpBind && !op.Pin && op.Source != op.Path {
			if r.From == nil {
				r.From = map[string]string{}
			}
			r.From[op.Path] = op.Source
		}
		switch {
		case op.Hidden:
			r.Hidden = append(r.Hidden, op.Path)
		case op.Pin:
			r.Pinned = append(r.Pinned, op.Path)
		case op.Kind == mounts.OpBind && op.ReadOnly, op.Kind == mounts.OpPinLink:
			r.RO = append(r.RO, op.Path)
		case op.Kind == mounts.OpBind:
			r.RW = append(r.RW, op.Path)
		case op.Kind == mounts.OpEmptyFile, op.Kind == mounts.OpTmpfs && op.ReadOnly:
			r.Deny = append(r.Deny, op.Path)
		case op.Kind == mounts.OpTmpfs:
			r.Tmpfs = append(r.Tmpfs, op.Path)
		case op.Kind == mounts.OpHostProc:
			r.Proc = "host"
		case op.Kind == mounts.OpHostSys:
			r.Sys = "host"
		case op.Kind == mounts.OpOverlay:
			r.Overlay = append(r.Overlay, op.Path)
		case op.Kind == mounts.OpFile:
			r.Files = append(r.Files, op.Path)
		case op.Kind == mounts.OpDev:
			for _, d := range op.Devices {
				r.Devices = append(r.Devices, path.Join(op.Path, d.Path))
			}
		}
	}
	return ns, r
}
