package environ

import (
	"reflect"
	"testing"
)

func TestGetSet(t *testing.T) {
	env := []string{"A=1", "B=2", "A=3", "C"}
	for _, c := range []struct {
		k, want string
		ok      bool
	}{{"A", "3", true}, {"B", "2", true}, {"C", "", true}, {"D", "", false}, {"", "", false}} {
		if v, ok := Get(env, c.k); v != c.want || ok != c.ok {
			t.Errorf("Get(%q) = %q, %v; want %q, %v", c.k, v, ok, c.want, c.ok)
		}
	}
	if got := Set(env, "A", "4"); !reflect.DeepEqual(got, []string{"B=2", "C", "A=4"}) {
		t.Errorf("Set A: %q", got)
	}
	if got := Set(nil, "A", ""); !reflect.DeepEqual(got, []string{"A="}) {
		t.Errorf("Set on nil: %q", got)
	}
	if Set(env, "B", "x"); !reflect.DeepEqual(env, []string{"A=1", "B=2", "A=3", "C"}) {
		t.Errorf("Set changed its input: %q", env)
	}
}
