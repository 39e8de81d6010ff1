package changes

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// ManifestName is the manifest's name in a kept directory.
const ManifestName = "nsrun-changes.json"

// Manifest says what a kept directory holds.
type Manifest struct {
	Version int `json:"version"`
	// Since is the time after which a host file changed is a conflict:
	// the manifest's own ctime when it was made, less Margin.
	Since   time.Time `json:"since"`
	Layers  []Layer   `json:"layers"`
	Applied time.Time `json:"applied,omitempty"`
}

// Layer is one overlay: its place inside, the host directory it showed
// (its lower layer) and its directory in the kept directory. Made are the
// entries nsrun made in its upper layer (mount points the lower lacks),
// relative to its top: not the payload's changes.
type Layer struct {
	Path string   `json:"path"`
	Host string   `json:"host"`
	Dir  string   `json:"dir"`
	Made []string `json:"made,omitempty"`
}

// Margin covers the kernel's coarse clock: a file changed up to this long
// before the run began reads as changed during it.
const Margin = 20 * time.Millisecond

// ErrNoManifest is a directory that holds no kept changes.
var ErrNoManifest = errors.New("holds no kept changes (no " + ManifestName + ")")

// ReadManifest reads dir's manifest.
func ReadManifest(dir string) (*Manifest, error) {
	b, err := os.ReadFile(filepath.Join(dir, ManifestName))
	if errors.Is(err, os.ErrNotExist) {
		return nil, ErrNoManifest
	}
	if err != nil {
		return nil, err
	}
	var m Manifest
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("%s: %w", ManifestName, err)
	}
	if m.Version != 1 {
		return nil, fmt.Errorf("%s: version %d; this nsrun reads version 1", ManifestName, m.Version)
	}
	for _, l := range m.Layers {
		if !filepath.IsAbs(l.Path) || !filepath.IsAbs(l.Host) || l.Dir == "" || filepath.Base(l.Dir) != l.Dir || l.Dir == "." || l.Dir == ".." {
			return nil, fmt.Errorf("%s: bad layer %+v", ManifestName, l)
		}
	}
	return &m, nil
}

// Same reports whether m keeps the layers of exactly these overlays.
func (m *Manifest) Same(layers []Layer) bool {
	if len(m.Layers) != len(layers) {
		return false
	}
	for i, l := range layers {
		if o := m.Layers[i]; o.Path != l.Path || o.Host != l.Host || o.Dir != l.Dir {
			return false
		}
	}
	return true
}
