//go:build linux

package main

import (
	"os"
	"testing"
)

// The profile docs/kubernetes.md points to is the one this command makes.
func TestKubernetesProfileIsCurrent(t *testing.T) {
	want, err := profile("kubernetes")
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../../docs/kubernetes/seccomp-nsrun.json")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Error("docs/kubernetes/seccomp-nsrun.json is not what go run ./integration/profiles kubernetes writes; write it again")
	}
}
