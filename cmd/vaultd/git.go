package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/vaultd/vaultd/tools"
	"github.com/vaultd/vaultd/vault"
)

// Git-synced teams: resolving a note's merge conflicts (the twin of
// resolve_conflict), vaultd as git's merge driver for notes, and one sync
// round with the remote.

func (a *app) resolveCmd() *cobra.Command {
	return toolCmd(a, command[tools.ResolveConflictArgs]{
		tool:  "resolve_conflict",
		use:   "NOTE|ATTACHMENT --take ours|theirs|both|text|current",
		short: "Resolve merge conflicts: a note's, of one section or all, or an attachment's",
		long: `Resolve the unresolved merge conflicts of a note (resolve_conflict): the
regions git left between <<<<<<<, ======= and >>>>>>>. With --heading only
the conflicts of that section, else every conflict of the note.

  --take ours     keep this clone's side (the text after <<<<<<<)
  --take theirs   keep the side merged in (the text before >>>>>>>)
  --take both     keep both, ours first
  --take text     your own text (--content or --file): the section's new
                  body with --heading, else the whole note
  --take current  the note as it is now (its markers were removed by hand)

The resolution is recorded in the history like every change. Once no
marker is left, a note git lists as unmerged is staged (git add): that is
how git learns it is resolved. A merge vaultd's sync started is committed
by the sync once every file is resolved; a merge you started is yours to
commit. "vaultd read NOTE" shows both sides and who wrote them.

An attachment (a picture, a PDF) changed on both sides of a merge cannot
be merged: vaultd's sync keeps both at once — ours at its path, theirs
beside it as "NAME (theirs).EXT" — and goes on syncing; one deleted on one
side and changed on the other stays as changed. "vaultd overview" lists
them. Choose with --take ours (theirs goes to the trash), --take theirs
(it replaces ours) or --take both (both stay); an attachment a merge you
started left unmerged is resolved from the versions git holds.`,
		example: `  vaultd read 1_Projekte/Website-Relaunch.md
  vaultd resolve 1_Projekte/Website-Relaunch.md --heading Ziele --take both --summary "beide Ziele behalten"
  vaultd resolve 1_Projekte/Website-Relaunch.md --take text --file gelöst.md --summary "von Hand zusammengeführt"
  vaultd resolve 3_Ressourcen/Netzplan.png --take theirs --summary "Jonas' Netzplan gilt"`,
		what: "the note in conflict", onMissing: "vaultd overview",
		check: func(cmd *cobra.Command, args []string, w *tools.ResolveConflictArgs) error {
			if w.Take == "" && vault.IsAttachment(args[0]) {
				return usagef(withGlobals(cmd, "vaultd overview"), "resolve needs --take ours, theirs or both for an attachment (the overview says which version is where)")
			}
			if w.Take == "" {
				return usagef(withGlobals(cmd, "vaultd read "+shellQuote(args[0])), "resolve needs --take ours, theirs, both, text or current (read the note to see both sides)")
			}
			return nil
		},
		contentIf: func(w *tools.ResolveConflictArgs) bool { return w.Take == vault.TakeText },
	})
}

func (a *app) gitCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "git",
		Short: "Set up git for the vault: vaultd merges notes section by section",
		Long: `Commands for a vault that is a git repository a team shares.

  vaultd git install        register vaultd as git's merge driver for notes
  vaultd git merge-driver   what git runs to merge a note (not for people)`,
		Args: args(0, false, "no arguments", "vaultd git install"),
		RunE: runE(func(cmd *cobra.Command, _ []string) error { return cmd.Help() }),
	}
	cmd.AddCommand(a.gitInstallCmd(), a.mergeDriverCmd())
	return cmd
}

func (a *app) gitInstallCmd() *cobra.Command {
	var yes bool
	cmd := &cobra.Command{
		Use:   "install",
		Short: "Register vaultd as git's merge driver for the vault's notes",
		Long: `Register vaultd as git's merge driver for the notes (*.md) of the vault:
merge.vaultd.driver in the clone's .git/config (with the absolute path of
this vaultd binary), "*.md merge=vaultd" in the vault's .gitattributes,
and vaultd's lines in the clone's .git/info/attributes, which win over any
.gitattributes a teammate commits: notes stay UTF-8 (no
working-tree-encoding) and are merged by vaultd here, whatever merge= line
comes in. vaultd sync keeps those lines and reports what the team's
.gitattributes set on notes.

git then merges a note by sections: a section changed on one side takes
that side, lines appended under the same heading on both sides are both
kept (ours first), frontmatter properties merge one by one, and only a
section changed differently on both sides stays a conflict, with git's
usual markers.

.gitattributes is shared with your team through git: when git tracks it,
vaultd shows what it would add and changes it only with --yes (or your
answer at the prompt). Commit it, and let each teammate run
"vaultd git install" once in their clone: a clone without the driver
merges notes with git's own line merge, as before.`,
		Example: `  vaultd git install --vault ~/team-notes
  vaultd git install --yes`,
		Args: args(0, false, "no arguments", "vaultd git install"),
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			v, err := a.openVault()
			if err != nil {
				return err
			}
			defer v.Close()
			bin, err := os.Executable()
			if err != nil {
				return fmt.Errorf("find the vaultd binary: %w", err)
			}
			if real, err := filepath.EvalSymlinks(bin); err == nil {
				bin = real
			}
			p, err := v.PlanMergeDriver(bin)
			if err != nil {
				return &failure{code: exitInvalid, msg: err.Error(), err: err}
			}
			out := a.out
			if p.Done() {
				fmt.Fprintf(out, "vaultd's merge driver is installed already:\n  .git/config: merge.vaultd.driver = %s\n  .git/info/attributes: vaultd's lines keep notes UTF-8 and merged by it in this clone\n  notes (*.md) are merged by it\n", p.Command)
				return nil
			}
			fmt.Fprintln(out, "vaultd git install:")
			if p.ConfigHas {
				fmt.Fprintf(out, "  .git/config: merge.vaultd.driver = %s (already set)\n", p.Command)
			} else {
				fmt.Fprintf(out, "  .git/config: set merge.vaultd.driver = %s\n", p.Command)
			}
			if p.InfoHas {
				fmt.Fprintln(out, "  .git/info/attributes: vaultd's lines are there already")
			} else {
				fmt.Fprintf(out, "  .git/info/attributes: add vaultd's lines %q (this clone only: they win over any .gitattributes, so notes stay UTF-8 and merge by sections here)\n", strings.Join(v.InfoAttrLines(), "; "))
			}
			switch {
			case p.AttrHas:
				fmt.Fprintln(out, "  .gitattributes: notes (*.md) use merge=vaultd already")
			case p.AttrExists:
				fmt.Fprintf(out, "  .gitattributes: add the line %q\n", vault.MergeDriverAttr)
			default:
				fmt.Fprintf(out, "  .gitattributes: create it with the line %q\n", vault.MergeDriverAttr)
			}
			if p.AttrOther != "" {
				fmt.Fprintf(out, "  (.gitattributes gives notes %s now: teammates' clones merge them so until the line above is committed)\n", p.AttrOther)
			}
			if !p.AttrHas && p.AttrTracked && !yes {
				if !isTerminal(a.in) || !confirm(a, "Change .gitattributes, which git tracks and your team shares? [y/N] ") {
					return &failure{code: exitUsage, try: withGlobals(cmd, "vaultd git install --yes"),
						msg: "nothing changed: .gitattributes is tracked by git (your team shares it), so vaultd changes it only when you confirm"}
				}
			}
			if err := v.InstallMergeDriver(p, true); err != nil {
				return err
			}
			fmt.Fprintln(out, "done: git merges this clone's notes section by section now.")
			if !p.AttrHas {
				fmt.Fprintln(out, "Commit .gitattributes so that your team's clones use it too; each teammate runs vaultd git install once.")
			}
			return nil
		}),
	}
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "change .gitattributes without asking, also when git tracks it")
	return cmd
}

// confirm asks a yes/no question on the terminal.
func confirm(a *app, question string) bool {
	fmt.Fprint(a.err, question)
	line, _ := bufio.NewReader(a.in).ReadString('\n')
	ans := strings.ToLower(strings.TrimSpace(line))
	return ans == "y" || ans == "yes" || ans == "j" || ans == "ja"
}

func (a *app) mergeDriverCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "merge-driver BASE OURS THEIRS [MARKER-SIZE] PATH",
		Short: "Merge one note three ways, by sections (git runs this)",
		Long: `git runs this for every note both sides changed, once "vaultd git install"
registered it: BASE, OURS and THEIRS are temporary files with the three
versions, PATH is the note's path. The merged note is written to OURS.
Exit status 0: merged cleanly; 1: conflicts are left between git's
markers, in the sections both sides changed differently.`,
		Hidden: true,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 4 && len(args) != 5 {
				return usagef("vaultd git install", "merge-driver takes BASE OURS THEIRS [MARKER-SIZE] PATH, as git passes them (%%O %%A %%B %%L %%P); got %d arguments", len(args))
			}
			return nil
		},
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			path := args[len(args)-1]
			var size int
			if len(args) == 5 {
				fmt.Sscan(args[3], &size)
			}
			res, _, err := vault.MergeFiles(args[0], args[1], args[2], size, path)
			if err != nil {
				return err
			}
			if res.NotText != "" {
				return &failure{code: exitError, msg: fmt.Sprintf("%s: not merged: %s; vaultd merges only UTF-8 notes, so the note is left as ours and in conflict: take a side whole with vaultd resolve --take ours or --take theirs (resolve_conflict)",
					path, res.NotText)}
			}
			if res.Conflicts > 0 {
				return &failure{code: exitError, msg: fmt.Sprintf("%s: %d merge %s left in %s (resolve them with vaultd resolve, or resolve_conflict)",
					path, res.Conflicts, map[bool]string{true: "conflict", false: "conflicts"}[res.Conflicts == 1], strings.Join(quoteEach(res.Sections), ", "))}
			}
			return nil
		}),
	}
	return cmd
}

func quoteEach(s []string) []string {
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = fmt.Sprintf("%q", x)
	}
	return out
}

func (a *app) syncCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sync",
		Short: "Sync the vault with its git remote once: fetch, merge, push vaultd's commits",
		Long: `One round of git sync, as "vaultd serve --git-sync INTERVAL" runs them:

  1. vaultd's own changes that are not committed yet (made while git was
     in the middle of a merge) are committed;
  2. the branch's upstream is fetched and merged, through vaultd's merge
     driver where "vaultd git install" registered it;
  3. vaultd's own commits are pushed — never with force, and not while
     the branch holds commits of yours that are not pushed (push those
     yourself).

Nothing happens while git is in the middle of a merge, rebase,
cherry-pick or revert, nor while your uncommitted changes touch a file
the merge would change. A merge that stops on conflicts stays in
progress: the notes show as in conflict everywhere (vaultd overview), and
once the last one is resolved (vaultd resolve), the next round commits
the merge and pushes it. The remote and its credentials are git's own.

Exit status: 0 synced or nothing to do, 1 a step failed, 4 notes are in
conflict.`,
		Example: `  vaultd sync --vault ~/team-notes
  vaultd serve --vault ~/team-notes --git-sync 5m`,
		Args: args(0, false, "no arguments", "vaultd sync"),
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			a.gitCommit = true
			v, err := a.openVault()
			if err != nil {
				return err
			}
			defer v.Close()
			r := whileReporting(a, "git sync of "+a.vaultNamed+": fetch, merge, push", "git sync", func() *vault.SyncReport { return v.Sync(cmd.Context()) })
			if a.json {
				if err := writeJSON(a.out, r); err != nil {
					return err
				}
			} else {
				fmt.Fprintln(a.out, "git sync: "+r.Text())
				for _, p := range r.Conflicts {
					fmt.Fprintf(a.out, "in conflict: %s (vaultd read %s shows both sides)\n", p, shellQuote(p))
				}
			}
			switch {
			case r.Error != "":
				return &failure{code: exitError, msg: "git sync failed: " + r.Error}
			case len(r.Conflicts) > 0:
				return &failure{code: exitConflict, msg: pluralNotes(len(r.Conflicts)) + " in conflict",
					try: withGlobals(cmd, "vaultd read "+shellQuote(r.Conflicts[0]))}
			}
			return nil
		}),
	}
	return cmd
}

func pluralNotes(n int) string {
	if n == 1 {
		return "1 note is"
	}
	return fmt.Sprintf("%d notes are", n)
}
