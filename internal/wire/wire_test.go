package wire

import (
	"encoding/binary"
	"reflect"
	"strings"
	"testing"
)

type inner struct {
	Name  string
	Flags uint16
	On    bool
}

type sample struct {
	I     int
	I8    int8
	U64   uint64
	S     string
	B     bool
	Strs  []string
	Empty []string
	Nil   []string
	Bytes []byte
	P     *inner
	NilP  *inner
	In    inner
	Ins   []inner
	Named kind
}

type kind int

func full() sample {
	return sample{
		I: -1 << 40, I8: -128, U64: 1<<64 - 1, S: "päth\x00with nul", B: true,
		Strs: []string{"a", "", "c"}, Empty: []string{}, Bytes: []byte{0, 255},
		P:  &inner{Name: "p", Flags: 0xffff, On: true},
		In: inner{Name: "in"}, Ins: []inner{{Name: "x"}, {On: true}}, Named: 3,
	}
}

func TestRoundTrip(t *testing.T) {
	want := full()
	b, err := Marshal(&want)
	if err != nil {
		t.Fatal(err)
	}
	var got sample
	if err := Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	if got.Empty == nil || got.Nil != nil || got.NilP != nil {
		t.Errorf("nil and empty not kept apart: Empty %#v, Nil %#v, NilP %v", got.Empty, got.Nil, got.NilP)
	}
}

func TestEveryTruncationFails(t *testing.T) {
	v := full()
	b, err := Marshal(&v)
	if err != nil {
		t.Fatal(err)
	}
	for n := range len(b) {
		var got sample
		if err := Unmarshal(b[:n], &got); err == nil {
			t.Fatalf("%d of %d bytes decoded without an error", n, len(b))
		}
	}
	var got sample
	if err := Unmarshal(append(b, 0), &got); err == nil || !strings.Contains(err.Error(), "left over") {
		t.Errorf("a trailing byte: got %v", err)
	}
}

func TestRefused(t *testing.T) {
	type hidden struct{ x int }
	type withMap struct{ M map[string]int }
	type withFloat struct{ F float64 }
	type empties struct{ E []struct{} }
	for name, v := range map[string]any{
		"unexported": &hidden{x: 1}, "map": &withMap{}, "float": &withFloat{}, "empty items": &empties{},
	} {
		if _, err := Marshal(v); err == nil {
			t.Errorf("%s: encoded", name)
		}
	}
}

func TestBadInput(t *testing.T) {
	var s struct {
		B  bool
		U8 uint8
	}
	for _, tc := range []struct {
		in   []byte
		want string
	}{
		{[]byte{2, 0}, "bool byte 2"},
		{[]byte{1, 0x80, 0x02}, "overflows uint8"},
	} {
		if err := Unmarshal(tc.in, &s); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("% x: got %v, want %q", tc.in, err, tc.want)
		}
	}
	var strs []string
	if err := Unmarshal([]byte{0xff, 0xff, 0xff, 0xff, 0x0f}, &strs); err == nil || !strings.Contains(err.Error(), "beyond") {
		t.Errorf("a huge length: got %v", err)
	}
	if err := Unmarshal([]byte{0}, strs); err == nil {
		t.Error("a non-pointer target was accepted")
	}
}

func FuzzUnmarshal(f *testing.F) {
	v := full()
	b, _ := Marshal(&v)
	f.Add(b)
	f.Fuzz(func(t *testing.T, b []byte) {
		var got sample
		if Unmarshal(b, &got) != nil {
			return
		}
		again, err := Marshal(&got)
		if err != nil {
			t.Fatal(err)
		}
		var back sample
		if err := Unmarshal(again, &back); err != nil || !reflect.DeepEqual(back, got) {
			t.Fatalf("re-encoding what decoded does not round-trip: %v", err)
		}
	})
}

// A slice's count is checked against the least its items take: 1,000
// three-field structs cannot fit in 100 bytes.
func TestSliceCountBoundedByItemSize(t *testing.T) {
	b := binary.AppendUvarint(nil, 1001)
	b = append(b, make([]byte, 100)...)
	var got []inner
	if err := Unmarshal(b, &got); err == nil || !strings.Contains(err.Error(), "beyond") {
		t.Errorf("got %v", err)
	}
}

// An empty struct inside an item takes no bytes, and does not make the
// item's least size larger than it is.
func TestItemsWithAnEmptyStruct(t *testing.T) {
	type item struct {
		A struct{}
		B bool
	}
	want := make([]item, 10)
	want[3].B = true
	b, err := Marshal(&want)
	if err != nil {
		t.Fatal(err)
	}
	var got []item
	if err := Unmarshal(b, &got); err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, %v", got, err)
	}
}
