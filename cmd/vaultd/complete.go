package main

import (
	"sort"
	"strings"

	"github.com/spf13/cobra"
)

// addCompletions teaches shell completion (vaultd completion bash|zsh|
// fish|powershell) the vault: a command whose usage names NOTE completes
// note paths, FOLDER folders (a folder completes to "name/" and goes on
// from there), and a --heading flag the headings of the note named before
// it. It walks the built tree, so a new command that says NOTE in its
// usage completes notes without edits here.
func (a *app) addCompletions(root *cobra.Command) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		use := c.Use
		switch {
		case c.ValidArgsFunction != nil:
		case strings.Contains(use, "NOTE|FOLDER"):
			c.ValidArgsFunction = a.completeArgs(true, true, 2)
		case strings.Contains(use, " NOTE") || strings.Contains(use, "[NOTE]"):
			c.ValidArgsFunction = a.completeArgs(true, false, 1)
		case strings.Contains(use, "FOLDER"):
			c.ValidArgsFunction = a.completeArgs(false, true, 1)
		}
		if c.Flags().Lookup("heading") != nil {
			_ = c.RegisterFlagCompletionFunc("heading", a.completeHeading)
		}
		if c.Flags().Lookup("note") != nil {
			_ = c.RegisterFlagCompletionFunc("note", func(cmd *cobra.Command, _ []string, prefix string) ([]string, cobra.ShellCompDirective) {
				return a.completePaths(prefix, true)
			})
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// completeArgs completes the first n positional arguments as notes and/or
// folders; later ones (tags, a destination) as folders when folders is
// set, else nothing.
func (a *app) completeArgs(notes, folders bool, n int) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
		switch {
		case len(args) == 0:
			return a.completePaths(prefix, notes)
		case len(args) < n && folders:
			return a.completePaths(prefix, false)
		}
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
}

// completePaths lists what comes next below prefix: the folders there (as
// "folder/", to go on with; always, as they lead to the notes below) and,
// with notes, the notes.
func (a *app) completePaths(prefix string, notes bool) ([]string, cobra.ShellCompDirective) {
	v, err := a.openVault()
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveError
	}
	defer v.Close()
	seen := map[string]bool{}
	var out []string
	lower := strings.ToLower(prefix)
	for _, p := range v.NotePaths() {
		if !strings.HasPrefix(strings.ToLower(p), lower) {
			continue
		}
		rest := p[len(prefix):]
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			dir := p[:len(prefix)+i+1]
			if !seen[dir] {
				seen[dir] = true
				out = append(out, dir)
			}
			continue
		}
		if notes && !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	sort.Strings(out)
	dir := cobra.ShellCompDirectiveNoFileComp
	for _, c := range out {
		if strings.HasSuffix(c, "/") {
			dir |= cobra.ShellCompDirectiveNoSpace // a folder goes on
			break
		}
	}
	return out, dir
}

// completeHeading lists the headings of the note named before --heading
// (the first argument, or --note), each as its text, those starting with
// prefix first.
func (a *app) completeHeading(cmd *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
	ref := ""
	if f := cmd.Flags().Lookup("note"); f != nil && f.Value.String() != "" {
		ref = f.Value.String()
	} else if len(args) > 0 {
		ref = args[0]
	}
	if ref == "" {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	v, err := a.openVault()
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveError
	}
	defer v.Close()
	n, _, err := v.Find(ref)
	if err != nil || n.Doc == nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	seen := map[string]bool{}
	var out []string
	lower := strings.ToLower(prefix)
	for _, h := range n.Doc.Headings {
		if seen[h.Text] || !strings.HasPrefix(strings.ToLower(h.Text), lower) {
			continue
		}
		seen[h.Text] = true
		out = append(out, h.Text)
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}
