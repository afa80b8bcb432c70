package tools

import (
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/vaultd/vaultd/note"
	"github.com/vaultd/vaultd/vault"
)

// Refusals: the calls of agents that vaultd refused — a rule of 9_System,
// a right the connection lacks, its rate limit — kept in memory, the
// newest refusalsKept of them, so that the vault's owner sees what the
// rules and limits stopped (the owner's page). Only refusals are kept, so
// ordinary calls pay nothing; a refusal costs one lock and one slot.
// Nothing is written to disk: the log has every refusal, the page the
// recent ones.

// refusalsKept bounds the refusals kept: the last few hours of a busy
// agent that keeps bumping into a rule.
const refusalsKept = 200

// Refusal is one refused call.
type Refusal struct {
	Time  time.Time
	Actor string // the connection: "key:laptop", "mcp:claude-code"
	Tool  string
	Path  string // the note or folder the call named; "" when none
	// Kind is "rule" (a rule of 9_System: a protected path, a required
	// property), "permission" (a right the connection lacks) or
	// "rate_limit".
	Kind string
	// Rule is the rule as written and RuleSource the note declaring it
	// ("" for the built-in 9_System/**), for Kind "rule".
	Rule, RuleSource string
	Reason           string // the refusal's first line, as the agent read it
}

// refusals is a ring of the latest refusals.
type refusals struct {
	mu    sync.Mutex
	buf   []Refusal
	next  int // where the next one goes, once buf is full
	total int // refusals since the core started
}

func (rs *refusals) add(r Refusal) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rs.total++
	if len(rs.buf) < refusalsKept {
		rs.buf = append(rs.buf, r)
		return
	}
	rs.buf[rs.next] = r
	rs.next = (rs.next + 1) % refusalsKept
}

// Refusals returns the refusals kept, newest first, and how many calls
// were refused since the core started (more than it returns once the
// oldest were dropped).
func (c *Core) Refusals() ([]Refusal, int) {
	rs := &c.refused
	rs.mu.Lock()
	defer rs.mu.Unlock()
	out := make([]Refusal, 0, len(rs.buf))
	for i := range len(rs.buf) {
		// Newest first: the slot before next, going back.
		out = append(out, rs.buf[(rs.next-1-i+2*len(rs.buf))%len(rs.buf)])
	}
	return out, rs.total
}

// noteRefusal keeps a call's answer if it is a refusal.
func (c *Core) noteRefusal(actor, tool string, args map[string]any, r *Result) {
	if r == nil || r.Err == nil {
		return
	}
	ref := Refusal{Time: c.now(), Actor: actor, Tool: tool, Reason: strings.TrimPrefix(firstLineOf(r.Text), "error: ")}
	ve, isVault := note.AsError(r.Err)
	switch {
	case errors.Is(r.Err, errRateLimited):
		ref.Kind = "rate_limit"
	case isVault && errors.Is(r.Err, vault.ErrDenied) && ve.Rule != "":
		ref.Kind, ref.Rule, ref.RuleSource, ref.Path = "rule", ve.Rule, ve.RuleSource, ve.Path
	case isVault && errors.Is(r.Err, vault.ErrDenied):
		ref.Kind, ref.Path = "permission", ve.Path
	default:
		return
	}
	if ref.Path == "" {
		if p, ok := args["path"].(string); ok {
			ref.Path = p
		}
	}
	c.refused.add(ref)
}

func firstLineOf(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
