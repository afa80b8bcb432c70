package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/vaultd/vaultd/tools"
)

// vaultsNotes is the size of each vault the vaults part serves.
const vaultsNotes = 2000

// vaultsBench measures what serving several vaults costs a call that
// names its vault: read_note, search_notes and append_to_note through one
// server of 1 vault and one of 3 (the same vault first, two more beside
// it), in process as vaultd serve runs them, the two alternating call by
// call. Issue 35's target: every single-vault operation costs what it
// costs with one (ratio p50 3 vaults / 1 vault ≤ 1.1). Also the cost of a
// search across all 3 and of a read that names no vault.
func vaultsBench(tmp string, rounds int, t *table) {
	t.corpus = fmt.Sprintf("synthetic 3 × %d notes", vaultsNotes)
	var cores []*tools.Core
	for i := range 3 {
		dir := filepath.Join(tmp, fmt.Sprintf("vaults-%d", i))
		check(os.RemoveAll(dir))
		writeBasesVault(dir, vaultsNotes)
		c, _, closeCore := openCore(dir, filepath.Join(tmp, fmt.Sprintf("vaults-state-%d", i)))
		defer closeCore()
		cores = append(cores, c)
	}
	one := tools.SingleVault(cores[0])
	three, err := tools.NewVaults([]string{"work", "privat", "team"}, cores)
	check(err)
	caller := tools.Caller{Actor: "bench", Perms: tools.Perms{Read: true, Write: true}}
	timed := func(vs *tools.Vaults, tool string, args map[string]any) time.Duration {
		a := map[string]any{}
		for k, v := range args {
			a[k] = v
		}
		if vs.Multi() {
			a["vault"] = "work"
		}
		start := time.Now()
		r := vs.Call(context.Background(), caller, tool, a)
		d := time.Since(start)
		if r.IsError() {
			fmt.Fprintln(os.Stderr, "  vaults:", tool, r.Text)
			os.Exit(1)
		}
		return d
	}
	n := max(rounds, 1) * 40
	ops := []struct {
		name, tool string
		args       func(i int) map[string]any
	}{
		{"read_note by path", "read_note", func(i int) map[string]any {
			return map[string]any{"path": benchNote(i * 3)}
		}},
		{"search_notes", "search_notes", func(i int) map[string]any {
			return map[string]any{"query": []string{"Stand", "Notiz 12", "siehe notiz00042", "aktiv"}[i%4]}
		}},
		{"append_to_note", "append_to_note", func(i int) map[string]any {
			return map[string]any{"path": benchNote(i * 7), "content": fmt.Sprintf("- Nachtrag %d", i), "change_summary": "bench"}
		}},
	}
	for _, op := range ops {
		var d1, d3 []time.Duration
		for i := range n {
			// Alternating, the 3-vault server first every other call.
			if i%2 == 0 {
				d1 = append(d1, timed(one, op.tool, op.args(i)))
				d3 = append(d3, timed(three, op.tool, op.args(i+n)))
			} else {
				d3 = append(d3, timed(three, op.tool, op.args(i+n)))
				d1 = append(d1, timed(one, op.tool, op.args(i)))
			}
		}
		p1, p3 := percentile(d1, 50), percentile(d3, 50)
		ratio := float64(p3) / float64(max(p1, 1))
		fmt.Fprintf(os.Stderr, "  vaults: %s p50 %s with 1 vault, %s with 3 (%.2f×, %d calls each)\n", op.name, ms(p1), ms(p3), ratio, n)
		t.add(op.name+", vault named: p50 with 1 vault", ms(p1), "")
		t.goal(op.name+", vault named: p50 with 3 vaults / with 1", fmt.Sprintf("%.2f× (%s)", ratio, ms(p3)), "≤ 1.1×", ratio <= 1.1)
	}
	var across, unnamed []time.Duration
	for i := range n {
		start := time.Now()
		_ = three.Call(context.Background(), caller, "search_notes", map[string]any{"query": []string{"Stand", "aktiv"}[i%2]})
		across = append(across, time.Since(start))
		start = time.Now()
		_ = three.Call(context.Background(), caller, "read_note", map[string]any{"path": benchNote(i)})
		unnamed = append(unnamed, time.Since(start))
	}
	t.add("search_notes across 3 vaults, p50", ms(percentile(across, 50)), "")
	t.add("read_note naming no vault (in all 3: an ambiguity), p50", ms(percentile(unnamed, 50)), "")
}

// benchNote is the path of a note writeBasesVault writes outside the
// archive, the k-th of them.
func benchNote(k int) string {
	i := k % vaultsNotes
	if i%10 == 0 {
		i++
	}
	return fmt.Sprintf("bereich%02d/notiz%05d.md", i%100, i)
}
