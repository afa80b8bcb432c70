package main

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/vaultd/vaultd/vault"
)

// The log names each attribute the team's .gitattributes set on notes:
// a warning where it is in effect and changes how notes merge or are
// stored, information where vaultd's own line wins.
func TestLogSync_Attributes(t *testing.T) {
	var buf bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&buf, nil))
	r := &vault.SyncReport{Upstream: "origin/main", Attributes: []vault.AttrNotice{
		{Attr: "working-tree-encoding=UTF-16LE-BOM", Notes: 3, Examples: []string{"A.md", "B.md", "C.md"}, Effect: "git would write these notes as UTF-16LE-BOM", Here: "vaultd keeps them UTF-8", Kept: true},
		{Attr: "merge=union", Notes: 1, Examples: []string{"Team/Log.md"}, Effect: "union keeps both sides' lines", Here: "vaultd's merge driver is not registered"},
	}}
	logSync(logger, r, time.Minute)
	out := buf.String()
	for _, want := range []string{
		`level=INFO msg="git sync" result="up to date with origin/main; .gitattributes sets working-tree-encoding=UTF-16LE-BOM (not in effect here), merge=union on notes"`,
		`level=INFO msg="git attribute on notes" attribute="working-tree-encoding=UTF-16LE-BOM" notes=3 examples="A.md, B.md, C.md"`,
		`level=WARN msg="git attribute on notes" attribute="merge=union" notes=1 examples=Team/Log.md effect="union keeps both sides' lines" here="vaultd's merge driver is not registered"`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %s\n%s", want, out)
		}
	}
}
