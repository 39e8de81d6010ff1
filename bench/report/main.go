// Command report prints hyperfine JSON results as a markdown table of
// medians, with each row's ratio to a chosen baseline row.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sort"
)

type result struct {
	Command string    `json:"command"`
	Median  float64   `json:"median"`
	User    float64   `json:"user"`
	System  float64   `json:"system"`
	Times   []float64 `json:"times"`
}

func main() {
	baseline := flag.String("baseline", "bwrap", "name of the row the others are compared with")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: report [-baseline NAME] HYPERFINE.json")
		os.Exit(2)
	}
	b, err := os.ReadFile(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var doc struct{ Results []result }
	if err := json.Unmarshal(b, &doc); err != nil {
		fmt.Fprintln(os.Stderr, "parse:", err)
		os.Exit(1)
	}
	base := 0.0
	for _, r := range doc.Results {
		if r.Command == *baseline {
			base = r.Median
		}
	}
	fmt.Println("| command | runs | median ms | p10–p90 ms | CPU ms (user+sys, mean) | median / " + *baseline + " |")
	fmt.Println("|---|---|---|---|---|---|")
	for _, r := range doc.Results {
		ratio := "–"
		if base > 0 {
			ratio = fmt.Sprintf("%.2f", r.Median/base)
		}
		p10, p90 := percentile(r.Times, 0.1), percentile(r.Times, 0.9)
		fmt.Printf("| %s | %d | %.2f | %.2f–%.2f | %.2f | %s |\n", r.Command, len(r.Times), r.Median*1000,
			p10*1000, p90*1000, (r.User+r.System)*1000, ratio)
	}
}

func percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[int(p*float64(len(s)-1))]
}
