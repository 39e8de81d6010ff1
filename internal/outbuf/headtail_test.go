package outbuf

import "testing"

func TestHeadTail(t *testing.T) {
	for _, tc := range []struct {
		writes []string
		want   string
	}{
		{[]string{"abc"}, "abc"},
		{[]string{"ab", "cd", "ef", "gh"}, "abcdefgh"},
		{[]string{"abcdefghij"}, "abcd\n... omitting 2 bytes ...\nghij"},
		{[]string{"abcd", "efghijk"}, "abcd\n... omitting 3 bytes ...\nhijk"},
		{[]string{"abcdefghijklmnopqrstuvwxyz"}, "abcd\n... omitting 18 bytes ...\nwxyz"},
		{[]string{"abcde", "f", "g", "h", "i", "j", "k", "l"}, "abcd\n... omitting 4 bytes ...\nijkl"},
	} {
		h := &HeadTail{Keep: 4}
		for _, w := range tc.writes {
			if m, err := h.Write([]byte(w)); err != nil || m != len(w) {
				t.Fatalf("%q: write %d, %v", tc.writes, m, err)
			}
		}
		if got := string(h.Bytes()); got != tc.want {
			t.Errorf("%q: %q, want %q", tc.writes, got, tc.want)
		}
	}
}
