package main

// The cold row (-only cold): a restart of the index with the page cache of
// the vault and the index emptied first, as after a reboot.

import (
	"fmt"
	"path/filepath"
)

// coldBench restarts the index on the unchanged vault with cold caches.
func coldBench(dir, state string, v *variant, t *table) {
	if !exists(filepath.Join(state, "index.manifest")) {
		t.add("cold cache: restart", "skipped: no index built", "")
		return
	}
	how := evict(dir, state)
	if how == "" {
		t.add("cold cache: restart", "skipped: neither drop_caches nor fadvise allowed", "")
		return
	}
	r := runChild(v.bench, "restart", dir, state)
	t.add("cold cache: restart unchanged, index open to up to date", fmt.Sprintf("%.2f s (%s)", r.Seconds, how), "")
}
