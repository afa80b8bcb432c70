package index

import (
	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/mapping"
)

// mappingVersion changes whenever the mapping or the analysis changes; an
// index built with another version is rebuilt from scratch on open.
//
//	2: date tokens (dates.go), properties (props.go), the file name as an
//	   alias when the title differs
//	3: section documents (docs.go); the homograph stop words (Würde, Weg,
//	   IT) are indexed; headings in meta carry their line and read_note name
//	4: the manifest records each note's titles, for the name table
//	   (names.go); a folder note is searched by its folder's name
//	5: a section document's heading's compound part tokens (shpart)
//	6: a long heading's read_note name is its first words (headingRefs);
//	   a byte that is not UTF-8 no longer ends a note's tokens
//	7: a permalink or slug property is searched like an alias (slugName)
//	8: the manifest keeps each note's title shown, tags and conflict
//	   markers (the catalog vault_overview lists from, names.go)
const mappingVersion = 8

const docType = "note"

// newMapping returns the index mapping. Every field is declared; nothing is
// dynamic, nothing goes to the _all field, and text fields keep no doc
// values (those would store every term a second time).
//
//	title, aliases, headings, body  analyzer vaultd_text, with term vectors
//	                                (positions for phrases; byte offsets to find
//	                                the section and the snippet of a hit); only
//	                                title and aliases are stored — snippets are cut from the
//	                                file, so the 166 MB of gesetze bodies are not
//	                                stored a second time
//	path, links, props              exact keyword (links: resolved target paths;
//	                                props: "prop:key=value", folded by props.go)
//	space, folder, tags, linkkeys   lower-cased keyword; folder and tags hold the
//	                                whole chain (a, a/b) so filters include children
//	modified                        date, sortable
//	ver, meta, li                   stored only: version, size/body offset/heading
//	                                table, outgoing links with their lines
//
// Section documents (docs.go) have:
//
//	sbody, shead                    the section's own text and heading, whole
//	                                words only: counts and norms, no term
//	                                vectors, not stored
//	shpart                          the heading's compound part tokens, likewise
//	sctx                            the enclosing headings' words, likewise
//	snote                           the note's path (keyword)
//
// Documents are built by docs.go (bleve's IndexAdvanced), which analyzes
// each note once for all its fields; the mapping describes the same fields
// for bleve's own use (query-time field lookup).
func newMapping() *mapping.IndexMappingImpl {
	im := bleve.NewIndexMapping()
	im.DefaultAnalyzer = analyzerText
	im.StoreDynamic = false
	im.IndexDynamic = false
	im.DocValuesDynamic = false

	text := func(store bool) *mapping.FieldMapping {
		f := bleve.NewTextFieldMapping()
		f.Analyzer = analyzerText
		f.Store = store
		f.Index = true
		f.IncludeTermVectors = true
		f.IncludeInAll = false
		f.DocValues = false
		return f
	}
	kw := func(analyzer string, store bool) *mapping.FieldMapping {
		f := bleve.NewKeywordFieldMapping()
		f.Analyzer = analyzer
		f.Store = store
		f.Index = true
		f.IncludeTermVectors = false
		f.IncludeInAll = false
		f.DocValues = false
		f.SkipFreqNorm = true
		return f
	}
	stored := func() *mapping.FieldMapping {
		f := bleve.NewTextFieldMapping()
		f.Analyzer = keyword.Name
		f.Store = true
		f.Index = false
		f.IncludeTermVectors = false
		f.IncludeInAll = false
		f.DocValues = false
		return f
	}

	dm := bleve.NewDocumentStaticMapping()
	dm.AddFieldMappingsAt(fTitle, text(true))
	dm.AddFieldMappingsAt(fAliases, text(true))
	dm.AddFieldMappingsAt(fHeadings, text(false))
	dm.AddFieldMappingsAt(fBody, text(false))
	dm.AddFieldMappingsAt(fPath, kw(keyword.Name, false))
	dm.AddFieldMappingsAt(fLinks, kw(keyword.Name, false))
	dm.AddFieldMappingsAt(fProps, kw(keyword.Name, false))
	dm.AddFieldMappingsAt(fSpace, kw(analyzerKeyword, true))
	dm.AddFieldMappingsAt(fFolder, kw(analyzerKeyword, false))
	dm.AddFieldMappingsAt(fTags, kw(analyzerKeyword, false))
	dm.AddFieldMappingsAt(fLinkKeys, kw(analyzerKeyword, false))
	mod := bleve.NewDateTimeFieldMapping()
	mod.Store = false
	mod.IncludeInAll = false
	mod.DocValues = true
	dm.AddFieldMappingsAt(fModified, mod)
	dm.AddFieldMappingsAt(fVersion, stored())
	dm.AddFieldMappingsAt(fMeta, stored())
	dm.AddFieldMappingsAt(fLinkInfo, stored())
	rank := func() *mapping.FieldMapping {
		f := text(false)
		f.IncludeTermVectors = false
		return f
	}
	dm.AddFieldMappingsAt(fSecBody, rank())
	dm.AddFieldMappingsAt(fSecHead, rank())
	dm.AddFieldMappingsAt(fSecParts, rank())
	dm.AddFieldMappingsAt(fSecCtx, rank())
	dm.AddFieldMappingsAt(fSecNote, kw(keyword.Name, false))

	im.AddDocumentMapping(docType, dm)
	im.DefaultType = docType // without it, query-time field lookup falls back to the default mapping (LIBRARIES §0 #5)
	im.DefaultMapping = bleve.NewDocumentDisabledMapping()
	return im
}
