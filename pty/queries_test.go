package pty

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"time"
)

// awaited lists the kinds q awaits.
func (q *Queries) awaitedKinds() []string {
	q.mu.Lock()
	defer q.mu.Unlock()
	return append([]string(nil), q.awaited...)
}

// splits feeds s to f whole, byte by byte, and in two at every place: a
// sequence split across reads is the same sequence.
func splits(s string, f func(parts ...string)) {
	f(s)
	var bytewise []string
	for i := range len(s) {
		bytewise = append(bytewise, s[i:i+1])
	}
	f(bytewise...)
	for i := 1; i < len(s); i++ {
		f(s[:i], s[i:])
	}
}

func TestQueriesInOutput(t *testing.T) {
	for _, tc := range []struct {
		out  string
		want []string
	}{
		{"plain text, no escapes\r\n", nil},
		{"\x1b[6n", []string{"[R"}},
		{"\x1b[?6n", []string{"[R"}},
		{"\x1b[5n", []string{"[n"}},
		{"\x1b[?996n", []string{"[?n"}},
		{"\x1b[>0n", nil}, // xterm's key modifier reset, no query
		{"\x1b[c\x1b[0c", []string{"[?c", "[?c"}},
		{"\x1b[>c\x1b[=c", []string{"[>c", "P!|"}},
		{"\x1b[1c", nil},
		{"\x1b[21t\x1b[20t\x1b[14t\x1b[18t", []string{"]l", "]L", "[t", "[t"}},
		{"\x1b[22;0t\x1b[8;24;80t", nil}, // push the title, resize: no answer
		{"\x1b[?2004$p\x1b[4$p", []string{"[?$y", "[$y"}},
		{"\x1b[>q\x1b[>0q", []string{"P>|", "P>|"}},
		{"\x1b[?u", []string{"[?u"}},
		{"\x1b[>1u\x1b[<u", nil}, // kitty keyboard push and pop
		{"\x1b[?4m", []string{"[>m"}},
		{"\x1b[0x", []string{"[x"}},
		{"\x1b[?1;1;0S\x1b[?1;2;256S", []string{"[?S"}},
		{"\x1bP$qm\x1b\\", []string{"P$r"}},
		{"\x1bP+q544e;636f6c73\x1b\\", []string{"P+r", "P+r"}},
		{"\x1bPq#0;2;0;0;0#0~~\x1b\\", nil}, // sixel
		{"\x1b]11;?\x07", []string{"]11"}},
		{"\x1b]10;?;?\x1b\\", []string{"]10", "]11"}},
		{"\x1b]4;1;?;2;rgb:00/00/00;3;?\x07", []string{"]4", "]4"}},
		{"\x1b]52;c;?\x07", []string{"]52"}},
		{"\x1b]52;c;aGVsbG8=\x07", nil},
		{"\x1b]21;foreground=?;background\x1b\\", []string{"]21"}},
		{"\x1b]2;?\x07\x1b]0;title\x07\x1b]8;;http://x/?\x07", nil},
		{"\x1b_Gi=31,s=1,v=1,a=q,t=d,f=24;AAAA\x1b\\", []string{"_G"}},
		{"\x1b_Gi=31,a=T;AAAA\x1b\\", nil},
		{"\x1b(B\x1b[1;31mred\x1b[0m\x1b[2J\x1b[H", nil},
		// Broken off, or a string ended by another escape.
		{"\x1b[6\x18n\x1b[6\x1b[c", []string{"[?c"}},
		{"\x1b]11;?\x1b[6n", []string{"]11", "[R"}},
		{"\x1b]11;?\x18", nil},
		{"\x1b[6\x07n", []string{"[R"}}, // a control inside is skipped
		{"\x1b\x1b[c", []string{"[?c"}},
	} {
		splits(tc.out, func(parts ...string) {
			q := &Queries{}
			for _, p := range parts {
				q.Output([]byte(p))
			}
			if got := q.awaitedKinds(); !reflect.DeepEqual(got, tc.want) && (len(got) > 0 || len(tc.want) > 0) {
				t.Errorf("%q in %d parts: awaited %q, want %q", tc.out, len(parts), got, tc.want)
			}
		})
	}
}

func TestAnswerKinds(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string
	}{
		{"\x1b[24;1R", "[R"},
		{"\x1b[?24;1;1R", "[R"},
		{"\x1b[0n", "[n"},
		{"\x1b[?997;1n", "[?n"},
		{"\x1b[?1;2c", "[?c"},
		{"\x1b[>41;367;0c", "[>c"},
		{"\x1bP!|00000000\x1b\\", "P!|"},
		{"\x1b[8;24;80t", "[t"},
		{"\x1b]ltitle\x1b\\", "]l"},
		{"\x1b]Llabel\x07", "]L"},
		{"\x1b[?2004;2$y", "[?$y"},
		{"\x1bP>|XTerm(367)\x1b\\", "P>|"},
		{"\x1b[?0u", "[?u"},
		{"\x1b[>4;2m", "[>m"},
		{"\x1bP1$r0m\x1b\\", "P$r"},
		{"\x1bP1+r544e=787465726d\x1b\\", "P+r"},
		{"\x1b]11;rgb:0000/0000/0000\x1b\\", "]11"},
		{"\x1b]4;1;rgb:cd/00/00\x07", "]4"},
		{"\x1b_Gi=31;OK\x1b\\", "_G"},
		// Keys.
		{"\x1b[A", "[A"},
		{"\x1b[1;5D", "[D"},
		{"\x1b[200~", "[~"},
		{"\x1b[<0;3;4M", "[<M"},
		{"\x1bOA", ""},
		{"\x1bx", ""},
	} {
		var got []string
		s := &scanner{}
		for i := range len(tc.in) {
			switch s.step(tc.in[i]) {
			case evDone, evAgain:
				got = append(got, answerKind(s.intro, s.body))
			}
		}
		if len(got) != 1 || got[0] != tc.want {
			t.Errorf("%q: kinds %q, want %q", tc.in, got, tc.want)
		}
	}
}

// Answers relayed while the program runs are awaited no longer; one to a
// later query tells that the terminal ignored those before it.
func TestQueriesAnsweredInTheRelay(t *testing.T) {
	for _, tc := range []struct {
		out, in string
		want    []string
	}{
		{"\x1b[6n\x1b[c", "\x1b[24;1R\x1b[?1;2c", nil},
		{"\x1b[6n\x1b[c", "\x1b[24;1R", []string{"[?c"}},
		{"\x1b[6n\x1b[c", "typed\x1b[Ak\x1b[24;1Rmore\x1b", []string{"[?c"}},
		// The terminal knows no XTVERSION: the answer to the DA after it
		// says so.
		{"\x1b[>q\x1b[c", "\x1b[?62c", nil},
		{"\x1b[>q\x1b[c", "\x1b[24;1R", []string{"P>|", "[?c"}},
		{"\x1b]11;?\x07\x1b[6n", "\x1b]11;rgb:0/0/0\x1b\\\x1b[1;1R", nil},
		// A typed Alt-] does not hide the answer after it.
		{"\x1b[6n", "\x1b]x\x1b[3;4R", nil},
	} {
		splits(tc.in, func(parts ...string) {
			q := &Queries{}
			q.Output([]byte(tc.out))
			for _, p := range parts {
				q.Input([]byte(p))
			}
			if got := q.awaitedKinds(); !reflect.DeepEqual(got, tc.want) && (len(got) > 0 || len(tc.want) > 0) {
				t.Errorf("%q answered by %q in %d parts: awaited %q, want %q", tc.out, tc.in, len(parts), got, tc.want)
			}
		})
	}
}

// After the relay, bytes are taken one by one: answers expected are
// dropped, anything else stops the reading at its first byte that no
// answer has, and is given back.
func TestAbsorbVerdicts(t *testing.T) {
	for _, tc := range []struct {
		name    string
		out     string // the program's queries
		relayed string // the terminal's input relayed before the end
		in      string // read after it
		dropped string // the answers dropped, in order
		back    string // what is given back: the bytes read of the first sequence no answer has
	}{
		{"answers", "\x1b[6n\x1b[c", "", "\x1b[24;1R\x1b[?1;2c", "\x1b[24;1R\x1b[?1;2c", ""},
		{"a title report", "\x1b[21t", "", "\x1b]lrm -rf ~\x1b\\", "\x1b]lrm -rf ~\x1b\\", ""},
		{"a key first", "\x1b[6n", "", "k\x1b[24;1R", "", "k"},
		{"a key after an answer", "\x1b[6n\x1b[c", "", "\x1b[24;1Rk", "\x1b[24;1R", "k"},
		{"an arrow key", "\x1b[6n", "", "\x1b[A", "", "\x1b[A"},
		{"an application-mode arrow key", "\x1b[6n", "", "\x1bOA", "", "\x1bO"},
		{"Alt-x", "\x1b[6n", "", "\x1bx", "", "\x1bx"},
		{"Alt-] no OSC awaited", "\x1b[6n", "", "\x1b]", "", "\x1b]"},
		{"an OSC not awaited", "\x1b]11;?\x07", "", "\x1b]12;", "", "\x1b]12;"},
		{"a DCS not awaited", "\x1b[>q", "", "\x1bP1$r", "", "\x1bP1$r"},
		{"a string broken off", "\x1b]11;?\x07", "", "\x1b]11;rgb\x1bx", "", "\x1b]11;rgb\x1bx"},
		{"a control in a CSI", "\x1b[6n", "", "\x1b[2\r", "", "\x1b[2\r"},
		{"an answer begun in the relay", "\x1b[6n", "\x1b[24", ";1R", ";1R", ""},
		{"an OSC begun in the relay", "\x1b]11;?\x07", "\x1b]11;rgb:", "0/0/0\x1b\\", "0/0/0\x1b\\", ""},
		{"a key begun in the relay", "\x1b[6n", "\x1b[", "A", "", "A"},
		{"an Escape key in the relay", "\x1b[6n", "\x1b", "\x1b[1;1R", "\x1b[1;1R", ""},
		{"Alt-] in the relay", "\x1b[6n", "\x1b]", "\x1b[1;1R", "\x1b[1;1R", ""},
		{"an answer to a query passed over", "\x1b[>q\x1b[6n\x1b[c", "\x1b[1;1R", "\x1bP>|kitty\x1b\\\x1b[?62c", "\x1bP>|kitty\x1b\\\x1b[?62c", ""},
		{"a second answer to one query", "\x1b]4;1;?\x07\x1b[6n", "", "\x1b]4;1;rgb:1/1/1\x07\x1b]4;1;rgb:1/1/1\x07\x1b[1;1R", "\x1b]4;1;rgb:1/1/1\x07\x1b]4;1;rgb:1/1/1\x07\x1b[1;1R", ""},
	} {
		q := &Queries{}
		q.Output([]byte(tc.out))
		q.Input([]byte(tc.relayed))
		q.startAbsorb()
		var dropped, held []byte
		back := ""
		for i := range len(tc.in) {
			b := tc.in[i]
			v := q.absorb(b, len(held) > 0)
			held = append(held, b)
			if v == vAnswer {
				dropped, held = append(dropped, held...), held[:0]
			} else if v == vForeign {
				back = string(held)
				break
			}
		}
		if string(dropped) != tc.dropped || back != tc.back {
			t.Errorf("%s: dropped %q, gave back %q; want %q, %q", tc.name, dropped, back, tc.dropped, tc.back)
		}
	}
}

// The time of the last query bounds the wait for its answer; Forget drops
// what is awaited.
func TestQueriesAwaited(t *testing.T) {
	now := time.Unix(1000, 0)
	q := &Queries{now: func() time.Time { return now }}
	if n, _ := q.Awaited(); n != 0 {
		t.Fatalf("%d awaited before any query", n)
	}
	q.Output([]byte("\x1b[6n"))
	now = now.Add(time.Second)
	q.Output([]byte("text \x1b[1mbold\x1b[0m"))
	if n, at := q.Awaited(); n != 1 || !at.Equal(time.Unix(1000, 0)) {
		t.Errorf("awaited %d since %v", n, at)
	}
	q.Output([]byte(strings.Repeat("\x1b]52;c;?\x07", 1000)))
	if n, at := q.Awaited(); n != maxAwaited || !at.Equal(now) {
		t.Errorf("awaited %d since %v after a flood", n, at)
	}
	q.Forget()
	if n, _ := q.Awaited(); n != 0 || q.expectsIntro(']') {
		t.Errorf("awaited %d after Forget", n)
	}
}

// Any output and input: the scanners never fail, what is remembered stays
// bounded, output without escapes asks nothing, and nothing is taken for
// an answer when nothing was asked.
func FuzzQueries(f *testing.F) {
	f.Add([]byte("\x1b[1;31mred\x1b[0m"), []byte("\x1b[24;1R"))
	f.Add([]byte("\x1b]11;?\x07\x1b[6n"), []byte("\x1b]11;rgb:0/0/0\x07k"))
	f.Fuzz(func(t *testing.T, out, in []byte) {
		q := &Queries{}
		q.Output(out)
		n, _ := q.Awaited()
		if n > maxAwaited || (n > 0 && !bytes.Contains(out, []byte{esc})) {
			t.Fatalf("%d awaited", n)
		}
		asked := n > 0 || len(q.passed) > 0
		q.Input(in)
		q.startAbsorb()
		held := false
		for _, b := range in {
			v := q.absorb(b, held)
			if v == vAnswer && !asked {
				t.Fatalf("an answer taken when nothing was asked")
			}
			if v == vForeign {
				break
			}
			held = true
		}
	})
}
