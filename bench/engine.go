package main

import (
	"fmt"
	"os"
	"path/filepath"
)

// engineRun is one build by bleve alone and the size of its index.
type engineRun struct {
	childResult
	SizeMB float64
}

// engineBuild builds dir with bleve alone (the bench's engine and
// engine-plain children: index.EngineFloor), with positions and without,
// in state dirs of their own under tmp.
func engineBuild(exe, dir, tmp string, round int) [2]engineRun {
	var out [2]engineRun
	for i, mode := range []string{"engine", "engine-plain"} {
		state := filepath.Join(tmp, "vaultd-bench-"+mode)
		check(os.RemoveAll(state))
		r := engineRun{childResult: runChild(exe, mode, dir, state)}
		r.SizeMB = float64(dirSize(filepath.Join(state, "index"))) / 1e6
		check(os.RemoveAll(state))
		fmt.Fprintf(os.Stderr, "  build %d (bleve alone, %s): %.1fs, CPU %.1fs, peak RSS %.0f MB (anonymous %.0f MB), %.0f MB on disk\n", round+1, engineName[i], r.Elapsed, r.CPU, float64(r.MaxRSSKB)/1024, float64(r.PeakAnonKB)/1024, r.SizeMB)
		out[i] = r
	}
	return out
}

var engineName = [2]string{"one text field with positions", "one text field without positions"}

// engineRows adds the rows of bleve alone beside this tree's build (its
// wall from process start to exit, CPU, peak RSS: medians) and qmd's where
// it ran: what the engine costs on the same files before any of vaultd's
// analysis, parsing and section documents. Not judged: they say which of
// a build's figures a design that keeps bleve can reach.
func engineRows(t *table, elapsed, cpus, rsss []float64, runs [][2]engineRun, peer []qmdRun) {
	last := func(x []float64) float64 { return x[len(x)-1] }
	var qmdCPU, qmdWall []float64
	for _, r := range peer {
		qmdCPU, qmdWall = append(qmdCPU, r.cpu), append(qmdWall, r.wall)
	}
	for i, name := range engineName {
		var wall, cpu, rss, size []float64
		for _, r := range runs {
			wall, cpu = append(wall, r[i].Elapsed), append(cpu, r[i].CPU)
			rss, size = append(rss, float64(r[i].MaxRSSKB)/1024), append(size, r[i].SizeMB)
		}
		ratios := fmt.Sprintf("%.2f× / %.2f× this tree's", median(wall)/median(elapsed), median(cpu)/last(cpus))
		if len(peer) > 0 {
			ratios += fmt.Sprintf(", %.2f× / %.2f× qmd's", median(wall)/median(qmdWall), median(cpu)/median(qmdCPU))
		}
		t.add("bleve alone, "+name+": wall, CPU", fmt.Sprintf("%s, %s (%s)", secs(median(wall)), secs(median(cpu)), ratios), "")
		t.add("bleve alone, "+name+": peak RSS, index", fmt.Sprintf("%s (%.2f× this tree's), %s", mb(median(rss)), median(rss)/last(rsss), mb(median(size))), "")
	}
}
