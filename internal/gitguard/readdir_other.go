//go:build !linux

package gitguard

import "os"

// reader reads directory listings with os.ReadDir, which reports the type
// the system gives without a stat where it can.
type reader struct{}

func newReader() *reader { return &reader{} }

func (r *reader) read(dir string) (*listing, error) {
	ents, err := os.ReadDir(dir)
	if err != nil && len(ents) == 0 {
		return nil, err
	}
	l := &listing{}
	for _, e := range ents {
		l.add(e.Name(), e.Type())
	}
	return l, nil
}
