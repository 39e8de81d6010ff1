package gitguard

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
)

// Entry is one variable of a git configuration file.
type Entry struct {
	// Section and Name are lower-case; Sub (the subsection) keeps its case,
	// as git compares it case-sensitively, except in the old [a.b] form.
	Section, Sub, Name string
	Value              string
	NoValue            bool // "key" alone, which git reads as true
	Line               int
}

// Key is the variable's full name as git prints it: section[.sub].name.
func (e Entry) Key() string {
	if e.Sub == "" {
		return e.Section + "." + e.Name
	}
	return e.Section + "." + e.Sub + "." + e.Name
}

// ParseConfig reads a git configuration file the way git's own parser does:
// sections with subsections (quoted, or the old dotted form), variables
// with quoted values, escapes and continued lines, comments after # or ;.
// Anything git would refuse is an error naming the line, so that a file
// nsrun cannot read is never taken as one without dangerous variables.
func ParseConfig(data []byte) ([]Entry, error) {
	p := &parser{data: bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")), line: 1}
	var out []Entry
	for {
		c, ok := p.skipSpace()
		if !ok {
			return out, nil
		}
		p.start = p.line
		switch {
		case c == '\n':
			p.next()
		case c == '#' || c == ';':
			p.skipLine()
		case c == '[':
			if err := p.section(); err != nil {
				return nil, p.errorf("%v", err)
			}
		case isAlpha(c):
			if p.sec == "" {
				return nil, p.errorf("variable outside a section")
			}
			e, err := p.variable()
			if err != nil {
				return nil, p.errorf("%v", err)
			}
			out = append(out, e)
		default:
			return nil, p.errorf("unexpected %q", c)
		}
	}
}

type parser struct {
	data     []byte
	pos      int
	line     int
	start    int // the line the construct being read starts on
	sec, sub string
}

func (p *parser) errorf(format string, a ...any) error {
	return fmt.Errorf("line %d: %s", p.start, fmt.Sprintf(format, a...))
}

func (p *parser) peek() (byte, bool) {
	if p.pos >= len(p.data) {
		return 0, false
	}
	return p.data[p.pos], true
}

func (p *parser) next() (byte, bool) {
	c, ok := p.peek()
	if ok {
		p.pos++
		if c == '\n' {
			p.line++
		}
	}
	return c, ok
}

// skipSpace skips blanks other than newlines and returns what follows.
func (p *parser) skipSpace() (byte, bool) {
	for {
		c, ok := p.peek()
		if !ok || c == '\n' || !isSpace(c) {
			return c, ok
		}
		p.pos++
	}
}

func (p *parser) skipLine() {
	for {
		c, ok := p.next()
		if !ok || c == '\n' {
			return
		}
	}
}

func (p *parser) section() error {
	p.next() // [
	var name strings.Builder
	for {
		c, ok := p.next()
		if !ok || c == '\n' {
			return errors.New("unterminated section header")
		}
		if c == ']' {
			break
		}
		if isSpace(c) {
			return p.subsection(name.String())
		}
		if !isAlnum(c) && c != '-' && c != '.' {
			return fmt.Errorf("bad character %q in a section name", c)
		}
		name.WriteByte(toLower(c))
	}
	sec := name.String()
	if sec == "" {
		return errors.New("empty section name")
	}
	// The old form [section.sub] names a subsection, compared without case.
	p.sec, p.sub, _ = strings.Cut(sec, ".")
	if p.sec == "" {
		return errors.New("empty section name")
	}
	return nil
}

// subsection reads ` "sub"]` after a section name.
func (p *parser) subsection(sec string) error {
	if sec == "" || strings.Contains(sec, ".") {
		return errors.New("bad section name before a subsection")
	}
	if c, _ := p.skipSpace(); c != '"' {
		return errors.New("a subsection must be quoted")
	}
	p.next()
	var sub strings.Builder
	for {
		c, ok := p.next()
		if !ok || c == '\n' || c == 0 {
			return errors.New("unterminated subsection")
		}
		if c == '"' {
			break
		}
		if c == '\\' {
			if c, ok = p.next(); !ok || c == '\n' {
				return errors.New("unterminated subsection")
			}
		}
		sub.WriteByte(c)
	}
	if c, ok := p.next(); !ok || c != ']' {
		return errors.New("subsection not followed by ]")
	}
	p.sec, p.sub = sec, sub.String()
	return nil
}

func (p *parser) variable() (Entry, error) {
	e := Entry{Section: p.sec, Sub: p.sub, Line: p.line}
	var name strings.Builder
	for {
		c, ok := p.peek()
		if !ok || !(isAlnum(c) || c == '-') {
			break
		}
		name.WriteByte(toLower(c))
		p.next()
	}
	e.Name = name.String()
	c, ok := p.skipSpace()
	switch {
	case !ok || c == '\n':
		e.NoValue = true
		p.next()
		return e, nil
	case c == '#' || c == ';':
		e.NoValue = true
		p.skipLine()
		return e, nil
	case c != '=':
		return e, fmt.Errorf("bad character %q after the name %s", c, e.Name)
	}
	p.next()
	v, err := p.value()
	e.Value = v
	return e, err
}

// value reads a variable's value up to the end of its (last continued)
// line: blanks outside quotes collapse to the spaces git keeps, trailing
// ones go, comments end it.
func (p *parser) value() (string, error) {
	var v strings.Builder
	quoted, spaces := false, 0
	for {
		c, ok := p.next()
		if !ok || c == '\n' {
			if quoted {
				return "", errors.New("unterminated quote in a value")
			}
			return v.String(), nil
		}
		if !quoted && (c == '#' || c == ';') {
			p.skipLine()
			return v.String(), nil
		}
		if !quoted && isSpace(c) {
			if v.Len() > 0 {
				spaces++
			}
			continue
		}
		for ; spaces > 0; spaces-- {
			v.WriteByte(' ')
		}
		switch c {
		case '"':
			quoted = !quoted
		case '\\':
			e, ok := p.next()
			if !ok {
				return "", errors.New("backslash at the end of the file")
			}
			switch e {
			case '\n':
				// A continued line.
			case 'n':
				v.WriteByte('\n')
			case 't':
				v.WriteByte('\t')
			case 'b':
				v.WriteByte('\b')
			case '\\', '"':
				v.WriteByte(e)
			default:
				return "", fmt.Errorf("bad escape \\%c in a value", e)
			}
		case 0:
			return "", errors.New("NUL byte in a value")
		default:
			v.WriteByte(c)
		}
	}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' }
func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isAlnum(c byte) bool { return isAlpha(c) || c >= '0' && c <= '9' }

func toLower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// Bool reads a value as git's boolean: true and false, yes and no, on and
// off, numbers; ok is false for anything else (a program name, a path).
func Bool(e Entry) (v, ok bool) {
	if e.NoValue {
		return true, true
	}
	switch strings.ToLower(e.Value) {
	case "true", "yes", "on", "1":
		return true, true
	case "false", "no", "off", "0", "":
		return false, true
	}
	return false, false
}
