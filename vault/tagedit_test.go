package vault

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/vaultd/vaultd/note"
)

func TestAddTags_Protocol(t *testing.T) {
	v, _ := wOpen(t, map[string]string{"A.md": "---\ntags: [a]\n---\nText #b\n"})
	res, te, err := v.AddTags("A", []string{"#b", "c"}, WriteOpts{Summary: "Tags"})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(te.Added, te.Inline) != "[b c] [{b 4}]" || !strings.Contains(res.Detail, "#b, #c added") {
		t.Errorf("got %+v, detail %q", te, res.Detail)
	}
	if h, _ := v.History(HistoryFilter{Path: "A.md"}); len(h) != 1 || h[0].Op != "add_tags" {
		t.Errorf("history: %+v", h)
	}
	res, te, err = v.RemoveTags("A", []string{"x"}, WriteOpts{Summary: "Tags"})
	if err != nil || res.Before != res.After || fmt.Sprint(te.Missing) != "[x]" {
		t.Errorf("removing a missing tag: %+v %+v %v", res, te, err)
	}
	if _, _, err := v.AddTags("A", nil, WriteOpts{Summary: "x"}); !errors.Is(err, note.ErrInvalid) {
		t.Errorf("no tags: got %v", err)
	}
}
