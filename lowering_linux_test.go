package nsrun

import (
	"io"
	"reflect"
	"testing"

	"github.com/nsrun/nsrun/internal/plan"
	"github.com/nsrun/nsrun/internal/sandbox"
)

// The sandbox's TTY modes are the library's, converted by value.
func TestSandboxTTYModesAreTheLibrarys(t *testing.T) {
	for m, want := range map[TTYMode]sandbox.TTYMode{TTYAuto: sandbox.TTYAuto, TTYAlways: sandbox.TTYAlways, TTYNever: sandbox.TTYNever} {
		if sandbox.TTYMode(m) != want {
			t.Errorf("%v is the sandbox's %d, want %d", m, sandbox.TTYMode(m), want)
		}
	}
}

// notPlanned are the Policy fields the planner's Request does not carry,
// and why.
var notPlanned = map[string]string{
	"Rules": "made canonical against the host (checkInput), then lowered once the home is made (lower, through Hooks.Lower)",
	// Functions: carried into Request.Net as they are, which no test
	// value here can tell apart.
	"HostAllowed": "a function", "Dial": "a function", "Resolve": "a function",
	"ShimLayers": "decided before the fork, whose init an overlay needs capabilities for; the directories found reach the planner as Request.Shims, set by prepare",
}

// Every Policy field the planner reads reaches its Request: set alone to
// a value other than its zero, it changes what is lowered.
func TestRequestLowersEveryField(t *testing.T) {
	lower := func(p *Policy) *plan.Request {
		ids, err := policyIDs(p)
		if err != nil {
			t.Fatal(err)
		}
		r, err := (&Cmd{}).request(p, ids, "/")
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	zero := lower(&Policy{})
	typ := reflect.TypeOf(Policy{})
	for i := range typ.NumField() {
		f := typ.Field(i)
		if why, ok := notPlanned[f.Name]; ok {
			if why == "" {
				t.Errorf("%s: say why it is not lowered", f.Name)
			}
			continue
		}
		var p Policy
		v := reflect.ValueOf(&p).Elem().Field(i)
		switch v.Kind() {
		case reflect.String:
			v.SetString("x")
		case reflect.Bool:
			v.SetBool(true)
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			v.SetInt(1)
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			v.SetUint(1)
		case reflect.Float32, reflect.Float64:
			v.SetFloat(1)
		case reflect.Pointer:
			v.Set(reflect.New(f.Type.Elem()))
			v.Elem().Set(reflect.ValueOf(5).Convert(f.Type.Elem()))
		case reflect.Slice:
			v.Set(reflect.MakeSlice(f.Type, 1, 1))
		default:
			t.Errorf("%s: no test value for a %s; lower it and give one, or list it in notPlanned", f.Name, v.Kind())
			continue
		}
		if reflect.DeepEqual(lower(&p), zero) {
			t.Errorf("Policy.%s does not reach the planner's Request: lower it (request) or list it in notPlanned with the reason", f.Name)
		}
	}
	for name, why := range notPlanned {
		if _, ok := typ.FieldByName(name); !ok {
			t.Errorf("notPlanned names %s (%s), which Policy no longer has", name, why)
		}
	}
	// And what the planner reads of the Cmd.
	ids, _ := policyIDs(&Policy{})
	for name, c := range map[string]*Cmd{"Args": {Args: []string{"x"}}, "Dir": {Dir: "x"}, "Env": {Env: []string{}}, "Log": {Log: io.Discard}} {
		if r, _ := c.request(&Policy{}, ids, "/"); reflect.DeepEqual(r, zero) {
			t.Errorf("Cmd.%s does not reach the planner's Request", name)
		}
	}
}

// The planner's home modes are the library's, converted by value.
func TestPlanHomeModesAreTheLibrarys(t *testing.T) {
	for h, want := range map[Home]plan.HomeMode{HomeInherit: plan.HomeInherit, HomePrivate: plan.HomePrivate, HomePersistent: plan.HomePersistent} {
		if plan.HomeMode(h) != want {
			t.Errorf("%v is the planner's %d, want %d", h, plan.HomeMode(h), want)
		}
	}
}
