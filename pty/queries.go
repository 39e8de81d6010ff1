package pty

import (
	"bytes"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"
)

// An answer's kind names its form: "[" and the marker, intermediates and
// final byte of a CSI ("[?c" for device attributes, "[R" for a cursor
// position, "[?$y" for a DEC mode), "]" and the number of an OSC ("]11")
// or its letter ("]l", a title report), "P" and the head of a DCS ("P$r",
// "P>|"), "_" and the first byte of an APC ("_G").

// queryAnswers is what a terminal answers to the sequence a program wrote
// (intro and body, as the scanner gives them): the kinds of its answers,
// one per answer, or none when it asks nothing.
func queryAnswers(intro byte, body []byte) []string {
	switch intro {
	case '[':
		return csiQuery(body)
	case ']':
		return oscQuery(body)
	case 'P':
		return dcsQuery(body)
	case '_':
		// The kitty graphics protocol's query: a=q among the keys.
		head, _, _ := bytes.Cut(body, []byte(";"))
		if len(head) > 0 && head[0] == 'G' && hasField(string(head[1:]), ",", "a=q") {
			return []string{"_G"}
		}
	}
	return nil
}

// The answers' kinds, made once: classifying output allocates nothing.
var (
	kindCPR, kindDSR, kindDECDSR = []string{"[R"}, []string{"[n"}, []string{"[?n"}
	kindDA1, kindDA2, kindDA3    = []string{"[?c"}, []string{"[>c"}, []string{"P!|"}
	kindWinops, kindLabel        = []string{"[t"}, []string{"]L"}
	kindTitle, kindRQM           = []string{"]l"}, []string{"[$y"}
	kindDECRQM, kindVersion      = []string{"[?$y"}, []string{"P>|"}
	kindKittyKeys, kindModKeys   = []string{"[?u"}, []string{"[>m"}
	kindTParm, kindGraphics      = []string{"[x"}, []string{"[?S"}
	kindChecksum, kindPresState  = []string{"P!~"}, []string{"P$u"}
	kindTermState, kindUPSS      = []string{"P$s"}, []string{"P!u"}
	kindLocator                  = []string{"[&w"}
)

func csiQuery(body []byte) []string {
	if len(body) == 0 {
		return nil
	}
	switch body[len(body)-1] {
	case 'm':
		if body[0] != '?' {
			return nil // SGR, the commonest of all
		}
	case 'n', 'c', 't', 'x', 'u', 'S', 'q', 'p', 'y', 'w', '|':
	default:
		return nil // the cursor's moves, erasing, modes: no answer
	}
	marker, params, inter, final := csiParts(body)
	p0, rest, _ := strings.Cut(params, ";")
	p1, _, _ := strings.Cut(rest, ";")
	zero := p0 == "" || p0 == "0"
	switch {
	case inter == "" && marker == 0:
		switch final {
		case 'n': // DSR
			switch p0 {
			case "5":
				return kindDSR
			case "6":
				return kindCPR
			}
		case 'c': // DA1
			if zero {
				return kindDA1
			}
		case 't': // XTWINOPS reports
			switch p0 {
			case "11", "13", "14", "15", "16", "18", "19":
				return kindWinops
			case "20":
				return kindLabel
			case "21":
				return kindTitle
			}
		case 'x': // DECREQTPARM
			if zero || p0 == "1" {
				return kindTParm
			}
		}
	case inter == "" && marker == '?':
		switch final {
		case 'n': // DEC DSR: ?6n the cursor (DECXCPR), others a status
			if p0 == "6" {
				return kindCPR
			}
			if p0 != "" {
				return kindDECDSR
			}
		case 'u': // the kitty keyboard protocol's flags
			return kindKittyKeys
		case 'm': // XTQMODKEYS
			return kindModKeys
		case 'S': // XTSMGRAPHICS: read, read the maximum
			if p1 == "1" || p1 == "4" {
				return kindGraphics
			}
		}
	case inter == "" && marker == '>':
		switch final {
		case 'c': // DA2
			if zero {
				return kindDA2
			}
		case 'q': // XTVERSION
			if zero {
				return kindVersion
			}
		}
	case inter == "" && marker == '=' && final == 'c' && zero: // DA3
		return kindDA3
	case inter == "$" && final == 'p': // DECRQM
		switch marker {
		case 0:
			return kindRQM
		case '?':
			return kindDECRQM
		}
	case marker == 0:
		switch inter + string(final) {
		case "*y":
			return kindChecksum // DECRQCRA
		case "$w":
			return kindPresState // DECRQPSR
		case "$u":
			return kindTermState // DECRQTSR
		case "&u":
			return kindUPSS // DECRQUPSS
		case "'|":
			return kindLocator // DECRQLP
		}
	}
	return nil
}

func oscQuery(body []byte) []string {
	num, rest, _ := strings.Cut(string(body), ";")
	ps, err := strconv.Atoi(num)
	if err != nil {
		return nil
	}
	fields := strings.Split(rest, ";")
	var kinds []string
	switch {
	case ps == 4 || ps == 5: // index;spec pairs, each spec "?" asks
		for i := 1; i < len(fields); i += 2 {
			if fields[i] == "?" {
				kinds = append(kinds, "]"+num)
			}
		}
	case ps >= 10 && ps <= 19: // the dynamic colors from ps on
		for i, f := range fields {
			if f == "?" && ps+i <= 19 {
				kinds = append(kinds, "]"+strconv.Itoa(ps+i))
			}
		}
	case ps == 52: // the clipboard: selection;?
		if len(fields) == 2 && fields[1] == "?" {
			kinds = append(kinds, "]52")
		}
	case ps == 21: // kitty's colors: key=? asks
		for _, f := range fields {
			if strings.HasSuffix(f, "=?") {
				return []string{"]21"}
			}
		}
	}
	return kinds
}

func dcsQuery(body []byte) []string {
	switch {
	case bytes.HasPrefix(body, []byte("$q")): // DECRQSS
		return []string{"P$r"}
	case bytes.HasPrefix(body, []byte("+q")): // XTGETTCAP: one answer a name
		var kinds []string
		for range strings.Split(string(body[2:]), ";") {
			kinds = append(kinds, "P+r")
		}
		return kinds
	}
	return nil
}

func hasField(s, sep, want string) bool {
	for _, f := range strings.Split(s, sep) {
		if f == want {
			return true
		}
	}
	return false
}

// answerKind is the kind of a sequence a terminal sent, "" when it is no
// answer's form.
func answerKind(intro byte, body []byte) string {
	if intro == '[' {
		marker, _, inter, final := csiParts(body)
		if final == 'R' {
			return "[R" // CSI r;c R, or CSI ? r;c R (DECXCPR)
		}
		k := "["
		if marker != 0 {
			k += string(marker)
		}
		return k + inter + string(final)
	}
	kind, _ := stringHead(intro, body, true)
	return kind
}

// maxAwaited bounds what is remembered of queries not answered: a
// program that floods its terminal with queries it never gets answers to
// costs no more.
const maxAwaited = 64

// Queries follows the queries a program writes to a terminal that the
// terminal answers on its input (the cursor's position, device
// attributes, colors, a title report, ...), and the answers the terminal
// sends: which are awaited still. Terminals answer in the order they were
// asked, so an answer also tells that the queries before it that are not
// answered yet will not be (the terminal does not know them): those are
// no longer awaited, but an answer to them is still recognized.
//
// Its methods may be called from several goroutines.
type Queries struct {
	mu      sync.Mutex
	out     scanner  // the program's output
	in      scanner  // the terminal's input
	awaited []string // the kinds of answers awaited, oldest first
	passed  []string // kinds passed over by a later answer
	last    string   // the kind last answered: a query may get several
	asked   time.Time
	now     func() time.Time // time.Now; tests set it
}

// Output takes what the program writes to the terminal, before it is
// written (so that an answer cannot come before its query is seen).
func (q *Queries) Output(b []byte) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.out.feed(b, func(s *scanner) { q.ask(queryAnswers(s.intro, s.body)) })
}

func (q *Queries) ask(kinds []string) {
	if len(kinds) == 0 {
		return
	}
	q.awaited = append(q.awaited, kinds...)
	if over := len(q.awaited) - maxAwaited; over > 0 {
		q.pass(q.awaited[:over])
		q.awaited = append(q.awaited[:0], q.awaited[over:]...)
	}
	if q.now == nil {
		q.now = time.Now
	}
	q.asked = q.now()
}

func (q *Queries) pass(kinds []string) {
	q.passed = append(q.passed, kinds...)
	if over := len(q.passed) - maxAwaited; over > 0 {
		q.passed = append(q.passed[:0], q.passed[over:]...)
	}
}

// Writer is w with what is written to it taken by Output first.
func (q *Queries) Writer(w io.Writer) io.Writer { return queryWriter{q, w} }

type queryWriter struct {
	q *Queries
	w io.Writer
}

func (w queryWriter) Write(b []byte) (int, error) {
	w.q.Output(b)
	return w.w.Write(b)
}

// Input takes what the terminal sent while it is relayed to the program:
// the answers in it are awaited no longer.
func (q *Queries) Input(b []byte) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.in.feed(b, func(s *scanner) { q.answer(answerKind(s.intro, s.body)) })
}

// answer takes an answer of kind: it reports whether one was expected.
func (q *Queries) answer(kind string) bool {
	if kind == "" {
		return false
	}
	for i, k := range q.awaited {
		if k == kind {
			q.pass(q.awaited[:i])
			q.awaited = append(q.awaited[:0], q.awaited[i+1:]...)
			q.last = kind
			return true
		}
	}
	for i, k := range q.passed {
		if k == kind {
			q.passed = append(q.passed[:i], q.passed[i+1:]...)
			q.last = kind
			return true
		}
	}
	return kind == q.last
}

// expects reports whether an answer of kind would be taken.
func (q *Queries) expects(kind string) bool {
	return kind != "" && (kind == q.last || contains(q.awaited, kind) || contains(q.passed, kind))
}

// expectsIntro reports whether an answer that starts with intro would be
// taken.
func (q *Queries) expectsIntro(intro byte) bool {
	if len(q.last) > 0 && q.last[0] == intro {
		return true
	}
	for _, l := range [][]string{q.awaited, q.passed} {
		for _, k := range l {
			if k[0] == intro {
				return true
			}
		}
	}
	return false
}

func contains(l []string, s string) bool {
	for _, k := range l {
		if k == s {
			return true
		}
	}
	return false
}

// Awaited is how many answers are awaited, and when the last query was
// seen.
func (q *Queries) Awaited() (int, time.Time) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.awaited), q.asked
}

// Forget drops the queries seen so far: the terminal's answers to them go
// to another reader (its shell, while the program is in the background).
func (q *Queries) Forget() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.awaited, q.passed, q.last = q.awaited[:0], q.passed[:0], ""
}

// verdict is what a byte read from the terminal after the relay makes of
// the bytes read since the sequence it belongs to began.
type verdict uint8

const (
	vMore    verdict = iota // the start of an answer expected: read on
	vAnswer                 // the end of an answer expected: drop them
	vForeign                // no answer expected (keys typed): give them back
)

// startAbsorb readies the input's scanner for absorb once the relay has
// stopped: a sequence begun in the relay is continued only when it can
// still be an answer expected.
func (q *Queries) startAbsorb() {
	q.mu.Lock()
	defer q.mu.Unlock()
	s := &q.in
	switch s.state {
	case sEscape, sCSI:
		return
	case sString, sStringEsc:
		if kind, ok := stringHead(s.intro, s.body, false); ok && q.expects(kind) && !s.long {
			return
		}
	}
	s.reset()
}

// absorb takes b, the next byte read from the terminal after the relay;
// held says whether bytes of the sequence in progress were read so (rather
// than relayed). It accepts only what an answer expected looks like, byte
// by byte, so that a key typed meanwhile is known at its first byte that
// no answer has.
func (q *Queries) absorb(b byte, held bool) verdict {
	q.mu.Lock()
	defer q.mu.Unlock()
	s := &q.in
	if b == esc && (s.state == sEscape || s.state == sCSI) && !held {
		s.reset() // a relayed start that no answer followed
	}
	fits := true
	switch s.state {
	case sGround:
		fits = b == esc
	case sEscape:
		fits = b == '[' || (isStringIntro(b) && q.expectsIntro(b))
	case sCSI:
		fits = b >= 0x20 && b <= 0x7e
	case sString:
		fits = b >= 0x20 || b == bel || b == esc
	case sStringEsc:
		fits = b == '\\'
	}
	if !fits {
		s.reset()
		return vForeign
	}
	switch s.step(b) {
	case evDone:
		if q.answer(answerKind(s.intro, s.body)) {
			return vAnswer
		}
		s.reset()
		return vForeign
	case evPart:
		if s.state == sString {
			if kind, ok := stringHead(s.intro, s.body, false); ok && !q.expects(kind) {
				s.reset()
				return vForeign
			}
		}
		return vMore
	}
	s.reset()
	return vForeign
}
