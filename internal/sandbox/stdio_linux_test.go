package sandbox

import (
	"io"
	"strings"
	"testing"
)

// funcWriter is a writer of a func type: two values of it in an interface
// cannot be compared with ==, which panics at run time.
type funcWriter func([]byte) (int, error)

func (f funcWriter) Write(p []byte) (int, error) { return f(p) }

// TestSameWriter tells one writer given twice from two writers, whatever
// their dynamic types, without panicking on uncomparable ones.
func TestSameWriter(t *testing.T) {
	var b strings.Builder
	f := funcWriter(b.Write)
	type sliceWriter struct {
		funcWriter
		s []int
	}
	type ifaceWriter struct {
		io.Writer
	}
	cases := []struct {
		name string
		a, b io.Writer
		want bool
	}{
		{"one pointer twice", &b, &b, true},
		{"two pointers", &b, &strings.Builder{}, false},
		{"nil stderr", &b, nil, false},
		{"both nil", nil, nil, false},
		{"func values", f, f, false},
		{"structs holding a slice", sliceWriter{f, nil}, sliceWriter{f, nil}, false},
		{"structs holding a comparable writer", ifaceWriter{&b}, ifaceWriter{&b}, true},
		{"structs holding an uncomparable writer", ifaceWriter{f}, ifaceWriter{f}, false},
		{"structs holding writers of two types", ifaceWriter{&b}, ifaceWriter{f}, false},
		{"different types", &b, f, false},
	}
	for _, c := range cases {
		if got := sameWriter(c.a, c.b); got != c.want {
			t.Errorf("%s: sameWriter = %v, want %v", c.name, got, c.want)
		}
	}
}
