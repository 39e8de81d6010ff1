package seccomp

import (
	"reflect"
	"strings"
	"testing"
)

func TestDecodeBPF(t *testing.T) {
	raw := []byte{
		0x20, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, // ld [4]
		0x15, 0x00, 0x01, 0xff, 0x3e, 0x00, 0x00, 0xc0, // jeq 0xc000003e, 1, 255
		0x06, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, // ret ALLOW
	}
	want := Program{
		{Code: bpfLdWAbs, K: 4},
		{Code: bpfJeqK, Jt: 1, Jf: 255, K: 0xc000003e},
		{Code: bpfRetK, K: 0xffffffff},
	}
	got, err := decodeBPF(raw)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, %v; want %v", got, err, want)
	}
	if _, err := decodeBPF(raw[:12]); err == nil || !strings.Contains(err.Error(), "whole number") {
		t.Errorf("a torn instruction: got %v", err)
	}
}
