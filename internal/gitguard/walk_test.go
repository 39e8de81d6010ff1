package gitguard

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// tree makes dirs directories under root, ten to a parent, each with
// files files, as a source tree or node_modules has them.
func tree(tb testing.TB, root string, dirs, files int) {
	tb.Helper()
	made := []string{root}
	for i := 0; len(made) <= dirs; i++ {
		parent := made[i]
		for j := 0; j < 10 && len(made) <= dirs; j++ {
			d := filepath.Join(parent, fmt.Sprintf("d%d", j))
			if err := os.Mkdir(d, 0o755); err != nil {
				tb.Fatal(err)
			}
			for k := 0; k < files; k++ {
				if err := os.WriteFile(filepath.Join(d, fmt.Sprintf("f%d.js", k)), nil, 0o644); err != nil {
					tb.Fatal(err)
				}
			}
			made = append(made, d)
		}
	}
}
