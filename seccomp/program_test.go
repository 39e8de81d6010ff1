package seccomp

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestProgramJSONRoundTrip(t *testing.T) {
	want := Program{
		{Code: bpfLdWAbs, K: 4},
		{Code: bpfJeqK, Jt: 1, Jf: 255, K: 0xc000003e},
		{Code: bpfRetK, K: 0xffffffff},
	}
	b, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	var got Program
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("round trip of %s: got %v, want %v", b, got, want)
	}
}

func TestProgramJSONRefusesBrokenInput(t *testing.T) {
	for _, in := range []string{`"not base64!"`, `"AAAA"`, `[1,2]`, `7`} {
		var p Program
		err := json.Unmarshal([]byte(in), &p)
		if err == nil || !strings.Contains(err.Error(), "BPF program") {
			t.Errorf("%s: got %v, want an error naming the BPF program", in, err)
		}
	}
}
