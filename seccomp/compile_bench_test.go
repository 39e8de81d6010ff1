package seccomp

import "testing"

// The default filter is compiled in the parent on every launch: its cost is
// part of nsrun's startup.
func BenchmarkCompileDefault(b *testing.B) {
	p := Default(Options{})
	for b.Loop() {
		if _, err := Compile(p); err != nil {
			b.Fatal(err)
		}
	}
}
