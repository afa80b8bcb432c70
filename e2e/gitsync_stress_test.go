//go:build stress

package e2e

import (
	"testing"
	"time"
)

// TestStress_GitSyncConverges is (4) of issue 18 at length: a minute of
// appends by an agent on each of two clones, both served with --git-sync,
// then both clones and the remote at one commit, every line there once,
// no conflict marker in any commit (make stress; -v shows the figures).
func TestStress_GitSyncConverges(t *testing.T) {
	convergence(t, time.Minute, "1s")
}
