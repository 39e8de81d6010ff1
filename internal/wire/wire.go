// Package wire encodes the values nsrun hands to its re-executed stages.
//
// The form is binary and positional: struct fields in declaration order,
// no names, integers as varints, strings and slices with their length. A
// freshly started process decodes a spec in tens of microseconds, where
// encoding/json first builds its per-type caches (0.5–1 ms cold, on the
// path of every launch).
//
// Both ends must be built from the same source, which a re-executed binary
// is. Supported kinds: bool, signed and unsigned integers, string, slice,
// pointer and struct; a struct with an unexported field, or any other kind
// (map, float, interface, ...), is refused rather than half sent. Decoding
// checks every length against the bytes left (a slice against the least
// its items can take), so a broken stream gives an error, and never
// allocates more than its length times its largest item's size over its
// smallest encoding.
package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"reflect"
)

// Marshal encodes v, or what v points to: Unmarshal into a pointer to the
// same type gives it back.
func Marshal(v any) ([]byte, error) {
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return nil, errors.New("wire: Marshal of a nil pointer")
		}
		rv = rv.Elem()
	}
	return appendValue(nil, rv)
}

// Unmarshal decodes b, as Marshal encoded it, into the value v points to.
// All of b must be used.
func Unmarshal(b []byte, v any) error {
	p := reflect.ValueOf(v)
	if p.Kind() != reflect.Pointer || p.IsNil() {
		return errors.New("wire: Unmarshal needs a non-nil pointer")
	}
	d := decoder{b: b}
	if err := d.value(p.Elem()); err != nil {
		return err
	}
	if len(d.b) != 0 {
		return fmt.Errorf("wire: %d bytes left over", len(d.b))
	}
	return nil
}

func appendValue(b []byte, v reflect.Value) ([]byte, error) {
	switch v.Kind() {
	case reflect.Bool:
		if v.Bool() {
			return append(b, 1), nil
		}
		return append(b, 0), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return binary.AppendVarint(b, v.Int()), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return binary.AppendUvarint(b, v.Uint()), nil
	case reflect.String:
		b = binary.AppendUvarint(b, uint64(v.Len()))
		return append(b, v.String()...), nil
	case reflect.Slice:
		// 0 is nil, n+1 a slice of n, so nil and empty stay apart.
		if v.Type().Elem().Size() == 0 {
			return nil, fmt.Errorf("wire: cannot encode %s: its items take no bytes", v.Type())
		}
		if v.IsNil() {
			return append(b, 0), nil
		}
		b = binary.AppendUvarint(b, uint64(v.Len())+1)
		var err error
		for i := range v.Len() {
			if b, err = appendValue(b, v.Index(i)); err != nil {
				return nil, err
			}
		}
		return b, nil
	case reflect.Pointer:
		if v.IsNil() {
			return append(b, 0), nil
		}
		return appendValue(append(b, 1), v.Elem())
	case reflect.Struct:
		// Fields are reached through Value, not Type.Field, which builds
		// a StructField (and allocates) each time.
		var err error
		for i := range v.NumField() {
			f := v.Field(i)
			if !f.CanInterface() {
				return nil, fmt.Errorf("wire: %s.%s is unexported", v.Type(), v.Type().Field(i).Name)
			}
			if b, err = appendValue(b, f); err != nil {
				return nil, err
			}
		}
		return b, nil
	}
	return nil, fmt.Errorf("wire: cannot encode %s", v.Type())
}

// minSize is the fewest bytes a value of t takes (0 for an empty struct),
// remembered per decoder.
func (d *decoder) minSize(t reflect.Type) int {
	if t.Kind() != reflect.Struct {
		return 1
	}
	if n, ok := d.sizes[t]; ok {
		return n
	}
	n := 0
	for i := range t.NumField() {
		n += d.minSize(t.Field(i).Type)
	}
	if d.sizes == nil {
		d.sizes = map[reflect.Type]int{}
	}
	d.sizes[t] = n
	return n
}

type decoder struct {
	b     []byte
	sizes map[reflect.Type]int
}

var errShort = errors.New("wire: input ends early")

func (d *decoder) byte() (byte, error) {
	if len(d.b) == 0 {
		return 0, errShort
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c, nil
}

func (d *decoder) uvarint() (uint64, error) {
	x, n := binary.Uvarint(d.b)
	if n <= 0 {
		return 0, errShort
	}
	d.b = d.b[n:]
	return x, nil
}

// length reads a count of items that each take at least one byte.
func (d *decoder) length() (int, error) {
	n, err := d.uvarint()
	if err != nil {
		return 0, err
	}
	if n > uint64(len(d.b)) {
		return 0, fmt.Errorf("wire: length %d beyond the %d bytes left", n, len(d.b))
	}
	return int(n), nil
}

func (d *decoder) value(v reflect.Value) error {
	switch v.Kind() {
	case reflect.Bool:
		c, err := d.byte()
		if err != nil {
			return err
		}
		if c > 1 {
			return fmt.Errorf("wire: bool byte %d", c)
		}
		v.SetBool(c == 1)
		return nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		x, n := binary.Varint(d.b)
		if n <= 0 {
			return errShort
		}
		d.b = d.b[n:]
		if v.OverflowInt(x) {
			return fmt.Errorf("wire: %d overflows %s", x, v.Type())
		}
		v.SetInt(x)
		return nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		x, err := d.uvarint()
		if err != nil {
			return err
		}
		if v.OverflowUint(x) {
			return fmt.Errorf("wire: %d overflows %s", x, v.Type())
		}
		v.SetUint(x)
		return nil
	case reflect.String:
		n, err := d.length()
		if err != nil {
			return err
		}
		v.SetString(string(d.b[:n]))
		d.b = d.b[n:]
		return nil
	case reflect.Slice:
		n, err := d.uvarint()
		if err != nil {
			return err
		}
		if n == 0 {
			v.SetZero()
			return nil
		}
		// An item takes at least a byte: Marshal refuses items of none.
		if n-1 > uint64(len(d.b)/max(d.minSize(v.Type().Elem()), 1)) {
			return fmt.Errorf("wire: %d items beyond the %d bytes left", n-1, len(d.b))
		}
		s := reflect.MakeSlice(v.Type(), int(n-1), int(n-1))
		for i := range s.Len() {
			if err := d.value(s.Index(i)); err != nil {
				return err
			}
		}
		v.Set(s)
		return nil
	case reflect.Pointer:
		c, err := d.byte()
		if err != nil {
			return err
		}
		switch c {
		case 0:
			v.SetZero()
			return nil
		case 1:
			e := reflect.New(v.Type().Elem())
			if err := d.value(e.Elem()); err != nil {
				return err
			}
			v.Set(e)
			return nil
		}
		return fmt.Errorf("wire: pointer byte %d", c)
	case reflect.Struct:
		for i := range v.NumField() {
			f := v.Field(i)
			if !f.CanSet() {
				return fmt.Errorf("wire: %s.%s is unexported", v.Type(), v.Type().Field(i).Name)
			}
			if err := d.value(f); err != nil {
				return fmt.Errorf("%s: %w", v.Type().Field(i).Name, err)
			}
		}
		return nil
	}
	return fmt.Errorf("wire: cannot decode %s", v.Type())
}
