package reexec

import (
	"os"
	"testing"
)

func TestRegisterAndInit(t *testing.T) {
	t.Cleanup(func() { delete(stages, "reexec-test-stage") })
	Register("reexec-test-stage", func() int { return 7 })

	args := os.Args
	t.Cleanup(func() { os.Args = args })
	os.Args = []string{"reexec-test-stage", "-flag"}
	if code, ran := Init(); !ran || code != 7 {
		t.Errorf("Init as the stage: code %d, ran %v; want 7, true", code, ran)
	}
	os.Args = []string{"some-program"}
	if _, ran := Init(); ran {
		t.Error("Init ran a stage for an unregistered argv[0]")
	}
	os.Args = nil
	if _, ran := Init(); ran {
		t.Error("Init ran a stage without argv")
	}
}

func TestRegisterTwicePanics(t *testing.T) {
	t.Cleanup(func() { delete(stages, "reexec-test-dup") })
	Register("reexec-test-dup", func() int { return 0 })
	defer func() {
		if recover() == nil {
			t.Error("a second Register under the same name did not panic")
		}
	}()
	Register("reexec-test-dup", func() int { return 1 })
}
