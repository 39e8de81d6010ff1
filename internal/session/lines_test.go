package session

import (
	"fmt"
	"slices"
	"testing"
)

func TestLines(t *testing.T) {
	l := NewLines("nsrun: warning: ")
	fmt.Fprintf(l, "nsrun: warning: git: %s is a repository\n", "/w/src")
	_, _ = l.Write([]byte("half "))
	if got := l.All(); !slices.Equal(got, []string{"git: /w/src is a repository"}) {
		t.Fatalf("after a line and a half: %q", got)
	}
	_, _ = l.Write([]byte("and the rest\nplain\n"))
	want := []string{"git: /w/src is a repository", "half and the rest", "plain"}
	if got := l.All(); !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	var none *Lines
	if none.All() != nil {
		t.Fatal("a nil Lines has lines")
	}
}
