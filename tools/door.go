package tools

import (
	"context"
	"strings"
	"time"

	"github.com/vaultd/vaultd/index"
)

// What a door (the MCP adapter, the CLI, a web page) needs of the core
// beside the tools: the vault, the rendering helpers its own texts share
// with the tools' texts, and one call on a connection.

// Allowed reports whether rights p include perm (read, write, delete).
func Allowed(p Perms, perm string) bool { return allowed(p, perm) }

// Cut shortens s to at most n runes at a word boundary, marking the cut.
func Cut(s string, n int) string { return cut(s, n) }

// Closest is at most as many of alternatives as an error lists.
func Closest(alternatives []string) []string { return limit(alternatives, maxAlternatives) }

// CallArg is one argument of a suggested call, in the order shown.
type CallArg struct {
	Name  string
	Value any
}

// CallText spells a suggested call of tool for door: `read_note {"path":
// "…"}` for an agent, `vaultd read …` on the command line.
func CallText(door Door, tool string, args ...CallArg) string {
	c := call{tool: tool}
	for _, a := range args {
		c.args = append(c.args, arg{a.Name, a.Value})
	}
	return c.render(door)
}

// CallOn runs tool name for caller on connection cn, as every MCP call
// runs: the connection's rights first, then its rate limits (refunded when
// the call changed nothing), and on a write tool the limits left.
func (c *Core) CallOn(ctx context.Context, cn *Connection, caller Caller, name string, args map[string]any) *Result {
	for _, t := range tools {
		if t.name == name {
			return c.callOn(ctx, cn, caller, t, args)
		}
	}
	return c.Call(ctx, caller, name, args)
}

// ParseWhen reads a time filter as recent_changes reads since and until:
// RFC 3339, a date (its start; with end, the start of the next day), a
// date and minute, or a span back from now ("7d", "24h", "2w"). The error
// names the filter and the forms it takes.
func ParseWhen(name, s string, now time.Time, end bool) (time.Time, error) {
	return parseWhen(name, s, now, end)
}

// IndexStatus is the search index's state: notes indexed, building
// progress, problems, when it last took in a change, whether it follows
// changes by other programs. ok is false when the core has no index; why
// then says why, when known (another process owns it, it could not be
// opened).
func (c *Core) IndexStatus() (st IndexState, ok bool, why error) {
	select {
	case <-c.idxOpen:
	default:
		return index.Status{Building: true}, true, nil // still opening
	}
	if c.idx == nil {
		return index.Status{}, false, c.noIndex
	}
	return c.idx.Status(), true, nil
}

// IndexState is the search index's state as the doors show it (the
// index's own Status, so that a door needs not import the index).
type IndexState = index.Status

// RulesView is what the vault's owner is shown of the rules in
// 9_System/: the rules notes, the problems in them (agents are not shown
// these), and the summary vault_overview gives agents.
type RulesView struct {
	Notes    []string
	Problems []string
	Summary  string
}

// RulesView returns the rules as the owner sees them. Errors: the rules
// notes cannot be read.
func (c *Core) RulesView() (RulesView, error) {
	r, err := c.Rules()
	if err != nil {
		return RulesView{}, err
	}
	v := RulesView{Problems: r.Problems, Summary: strings.TrimSpace(r.Summary())}
	for _, n := range r.Notes {
		v.Notes = append(v.Notes, n.Path)
	}
	return v, nil
}
