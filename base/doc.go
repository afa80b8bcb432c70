// Package base reads Obsidian Bases — `.base` files and ```base blocks —
// and runs their views over a set of files: the filters (and/or/not of
// expressions), the formulas, the properties' display names, the views
// (table, cards, list) with their order, sort, groupBy, limit and
// per-view filters, and the summaries. The expression language is
// Obsidian's (shared/corpora/obsidian-help-en/Bases/Functions.md, "Bases
// syntax.md"): note properties bare or as note.x, file.*, formula.*, this,
// the operators, date arithmetic with duration strings, and the global,
// string, number, list, date, link, file, object and regexp functions.
//
// It owns no I/O: the caller hands it the files (File) with what the
// index keeps of each (properties, tags, links, times), and a way to
// resolve a link; it answers rows, groups and summaries. A parse error or
// an unknown function is an *Error naming the expression and the column.
package base
