package values

import "testing"

func TestSizeText(t *testing.T) {
	for n, want := range map[uint64]string{1: "1", 1023: "1023", 1024: "1K", 1536: "1536", 64 << 20: "64M", 3 << 30: "3G", 1 << 40: "1T", 1<<30 + 1<<20: "1025M"} {
		if got := SizeText(n); got != want {
			t.Errorf("SizeText(%d) = %q, want %q", n, got, want)
		}
		if back, err := ParseSize(want); err != nil || back != n {
			t.Errorf("ParseSize(%q) = %d, %v", want, back, err)
		}
	}
}
