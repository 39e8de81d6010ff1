package windows

import (
	"reflect"
	"testing"
)

func TestWithTemp(t *testing.T) {
	got := WithTemp([]string{"PATH=C:\\bin", "temp=C:\\x", "TMP=C:\\y", "TEMPLATE=1"}, `C:\t`)
	want := []string{"PATH=C:\\bin", "TEMPLATE=1", `TEMP=C:\t`, `TMP=C:\t`}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("WithTemp = %q, want %q", got, want)
	}
}
