package tools

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"io/fs"
	"strings"
	"text/template"
	"time"

	"github.com/vaultd/vaultd/note"
	"github.com/vaultd/vaultd/rules"
)

// Limits are the rate limits of one connection.
type Limits struct {
	WritesPerMinute  int // default 60
	WriteBurst       int // default 10
	DeletesPerMinute int // default 10
	DeleteBurst      int // default 3
}

// WithDefaults returns l with the defaults in its zero fields: the limits
// a connection made with l has.
func (l Limits) WithDefaults() Limits { return l.withDefaults() }

func (l Limits) withDefaults() Limits {
	if l.WritesPerMinute <= 0 {
		l.WritesPerMinute = 60
	}
	if l.WriteBurst <= 0 {
		l.WriteBurst = 10
	}
	if l.DeletesPerMinute <= 0 {
		l.DeletesPerMinute = 10
	}
	if l.DeleteBurst <= 0 {
		l.DeleteBurst = 3
	}
	return l
}

// Connection is one client's identity, rights and rate limits. For stdio
// there is one per process; over HTTP one per access key.
type Connection struct {
	Actor string
	Perms Perms
	// Vaults are its rights per vault, where one server serves several
	// and a key names them; nil: Perms in every vault. Perms then is
	// their union (the tools it is shown).
	Vaults map[string]Perms
	writes *bucket
	dels   *bucket
	limits Limits
}

// NewConnection returns a connection with its own limits.
func NewConnection(actor string, p Perms, l Limits) *Connection {
	l = l.withDefaults()
	return &Connection{
		Actor:  actor,
		Perms:  p,
		limits: l,
		writes: newBucket(l.WritesPerMinute, l.WriteBurst),
		dels:   newBucket(l.DeletesPerMinute, l.DeleteBurst),
	}
}

// reserve takes what a call of t needs from the connection's limits
// before it runs: one write for every write or delete tool, one delete
// more for a delete tool. A call over the limit gets an error that says
// when to retry, and nothing is taken. The caller refunds the charge when
// the call changed nothing.
func (cn *Connection) reserve(t tool, now time.Time) (*charge, *Result) {
	ch := &charge{cn: cn}
	if t.perm == "read" || !allowed(cn.Perms, t.perm) {
		return ch, nil
	}
	if ok, wait := cn.writes.take(now); !ok {
		return nil, cn.rateLimited("writes", wait, "")
	}
	ch.writes = 1
	if t.perm == "delete" {
		if ok, wait := ch.takeDelete(now); !ok {
			ch.refund(now)
			return nil, cn.rateLimited("deletes", wait, "")
		}
	}
	return ch, nil
}

var errRateLimited = fmt.Errorf("rate limited")

// callOn runs tool t for caller on connection cn, as every MCP call runs:
// the connection's rights first, then its rate limits (refunded when the
// call changed nothing), and on a write tool the limits left.
func (c *Core) callOn(ctx context.Context, cn *Connection, caller Caller, t tool, args map[string]any) *Result {
	var r *Result
	if !allowed(caller.Perms, t.perm) {
		r = permissionDenied(caller, t.name, t.perm)
	} else if ch, refused := cn.reserve(t, time.Now()); refused != nil {
		r = refused
	} else {
		caller.charge = ch
		r = t.run(ctx, c, caller, args)
		if !r.Changed {
			ch.refund(time.Now())
		}
	}
	c.noteRefusal(cn.Actor, t.name, args, r)
	if t.perm != "read" && allowed(cn.Perms, t.perm) {
		r = withBudget(r, cn, time.Now())
	}
	return r
}

// CallAs runs a tool by name for connection cn the way an MCP tools/call
// on that connection runs it: its rights (a tool it may not use is
// refused with the permission-denied text), its rate limits, the limits
// left on a write's answer, the actor recorded in history. An unknown
// tool is an invalid-argument error listing the tools cn may use. The
// answer is the Result whose Text an MCP client shows the model.
func (c *Core) CallAs(ctx context.Context, cn *Connection, name string, args map[string]any) *Result {
	caller := Caller{Actor: cn.Actor, Perms: cn.Perms, Door: DoorMCP}
	for _, t := range tools {
		if t.name == name {
			if args == nil {
				args = map[string]any{}
			}
			return c.callOn(ctx, cn, caller, t, args)
		}
	}
	return c.fail(caller, failure{tool: name}, &note.Error{Op: "call", Kind: note.ErrInvalid,
		Msg: fmt.Sprintf("there is no tool %q; tools: %s", name, strings.Join(ToolNames(cn.Perms), ", "))})
}

//go:embed instructions.md
var instructionsTmpl string

var instructions = template.Must(template.New("instructions").Parse(instructionsTmpl))

// Instructions renders the server instructions for a connection with every
// right (InstructionsFor).
func (c *Core) Instructions() string { return c.InstructionsFor(AllPerms) }

// InstructionsFor renders the server instructions for a connection with
// perms: what this vault is, its spaces, its rules from 9_System/ (only if
// it has that folder), where to start — and the write tools only when the
// connection may write (AGENT-CONTRACT rule 16: what they claim is true).
func (c *Core) InstructionsFor(p Perms) string {
	spaces := c.v.Spaces()
	sp := "none yet"
	if len(spaces) > 0 {
		sp = strings.Join(spaces, ", ")
	}
	data := map[string]any{"Spaces": sp, "Write": p.Write, "Delete": p.Write && p.Delete}
	if fi, err := fs.Stat(c.v.FS(), rules.Folder); err == nil && fi.IsDir() {
		data["Rules"] = true
		if r, err := c.Rules(); err == nil {
			data["Policy"] = r.Policy()
			var names []string
			for _, n := range r.Notes {
				if n.Guidance != "" {
					names = append(names, n.Path)
				}
			}
			data["Guides"] = strings.Join(names, ", ")
		}
	}
	var b bytes.Buffer
	_ = instructions.Execute(&b, data)
	return strings.TrimSpace(strings.ReplaceAll(b.String(), "\n\n\n", "\n\n"))
}
