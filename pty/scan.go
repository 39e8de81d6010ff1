package pty

import "bytes"

// The escape sequences of a terminal's two streams, 7-bit forms only (in
// UTF-8, which terminals speak now, the 8-bit C1 controls are not
// controls): CSI (ESC [), and the strings OSC (ESC ]), DCS (ESC P), APC
// (ESC _), PM (ESC ^) and SOS (ESC X), ended by ST (ESC \) or BEL.

const (
	esc = 0x1b
	bel = 0x07
	can = 0x18
	sub = 0x1a

	// maxBody is how much of a sequence is kept to classify it: queries
	// and answers are short; a longer one (a clipboard's contents) is
	// followed to its end without being kept.
	maxBody = 512
)

type scanState uint8

const (
	sGround    scanState = iota
	sEscape              // after ESC
	sCSI                 // after ESC [
	sString              // in the body of a string
	sStringEsc           // after ESC in a string: ST if '\' follows
)

type scanEvent uint8

const (
	evPlain  scanEvent = iota // a byte outside any sequence
	evPart                    // a byte of an unfinished sequence
	evDone                    // the last byte of a sequence: intro and body say which
	evAgain                   // ESC then this byte ended a string (not with ST): it is done, and the byte is to be stepped again
	evBroken                  // the sequence was broken off (CAN, SUB, a byte no sequence has): the scanner is back at ground
)

// scanner splits a byte stream into escape sequences, across any split of
// the stream into reads.
type scanner struct {
	state scanState
	intro byte   // '[' CSI, ']' OSC, 'P' DCS, '_' APC, '^' PM, 'X' SOS, or the byte after ESC of another escape
	body  []byte // what follows the introducer, up to maxBody bytes
	long  bool   // the body was longer than maxBody
}

func isStringIntro(b byte) bool {
	return b == ']' || b == 'P' || b == '_' || b == '^' || b == 'X'
}

func (s *scanner) reset() {
	s.state, s.intro, s.body, s.long = sGround, 0, s.body[:0], false
}

func (s *scanner) keep(b byte) {
	if len(s.body) < maxBody {
		s.body = append(s.body, b)
	} else {
		s.long = true
	}
}

// step takes the stream's next byte.
func (s *scanner) step(b byte) scanEvent {
	switch s.state {
	case sGround:
		if b == esc {
			s.reset()
			s.state = sEscape
			return evPart
		}
		return evPlain
	case sEscape:
		switch {
		case b == esc:
			return evPart
		case b == can || b == sub:
			s.reset()
			return evBroken
		case b == '[':
			s.state, s.intro = sCSI, b
			return evPart
		case isStringIntro(b):
			s.state, s.intro = sString, b
			return evPart
		}
		// Another escape (a charset, a key with Alt): not one that asks
		// or answers anything.
		s.state, s.intro = sGround, b
		return evDone
	case sCSI:
		switch {
		case b >= 0x40 && b <= 0x7e:
			s.keep(b)
			s.state = sGround
			return evDone
		case b >= 0x20 && b <= 0x3f:
			s.keep(b)
			return evPart
		case b == esc:
			s.reset()
			s.state = sEscape
			return evPart
		case b == can || b == sub || b >= 0x80:
			s.reset()
			return evBroken
		}
		return evPart // a control inside is acted on and skipped
	case sString:
		switch b {
		case bel:
			s.state = sGround
			return evDone
		case esc:
			s.state = sStringEsc
			return evPart
		case can, sub:
			s.reset()
			return evBroken
		}
		s.keep(b)
		return evPart
	default: // sStringEsc
		s.state = sGround
		if b == '\\' {
			return evDone
		}
		return evAgain
	}
}

// again steps b after evAgain: ESC was its escape.
func (s *scanner) again(b byte) scanEvent {
	s.reset()
	s.state = sEscape
	return s.step(b)
}

// csiParts splits a CSI body: the private marker (< = > ?, or 0), the
// parameters, the intermediates and the final byte.
func csiParts(body []byte) (marker byte, params, inter string, final byte) {
	if len(body) == 0 {
		return 0, "", "", 0
	}
	final, body = body[len(body)-1], body[:len(body)-1]
	if len(body) > 0 && body[0] >= '<' && body[0] <= '?' {
		marker, body = body[0], body[1:]
	}
	i := 0
	for i < len(body) && body[i] >= 0x30 && body[i] <= 0x3f {
		i++
	}
	return marker, string(body[:i]), string(body[i:]), final
}

// stringHead is the kind a string's head names (see answerKind), and
// whether the head is complete; ended says the body is all there is.
func stringHead(intro byte, body []byte, ended bool) (string, bool) {
	switch intro {
	case ']':
		if len(body) > 0 && (body[0] < '0' || body[0] > '9') {
			return "]" + string(body[0]), true // OSC l, OSC L: title reports
		}
		i := 0
		for i < len(body) && body[i] >= '0' && body[i] <= '9' {
			i++
		}
		if i == len(body) && !ended {
			return "", false
		}
		return "]" + string(body[:i]), true
	case 'P':
		var markers []byte
		for i, b := range body {
			switch {
			case b >= 0x3c && b <= 0x3f:
				markers = append(markers, b)
			case b >= 0x30 && b <= 0x3b:
			case b >= 0x20 && b <= 0x2f:
				markers = append(markers, b)
			case b >= 0x40 && b <= 0x7e:
				return "P" + string(markers) + string(body[i]), true
			default:
				return "", true
			}
		}
		return "", ended
	case '_':
		if len(body) == 0 {
			return "", ended
		}
		return "_" + string(body[0]), true
	}
	return "", true
}

// feed steps s through b, calling done with s at the end of each sequence.
// Bytes outside sequences are skipped to the next escape.
func (s *scanner) feed(b []byte, done func(s *scanner)) {
	for len(b) > 0 {
		if s.state == sGround {
			i := bytes.IndexByte(b, esc)
			if i < 0 {
				return
			}
			b = b[i:]
		}
		ev := s.step(b[0])
		if ev == evDone || ev == evAgain {
			done(s)
		}
		if ev == evAgain {
			s.again(b[0])
		}
		b = b[1:]
	}
}
