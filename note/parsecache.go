package note

import (
	"container/list"
	"sync"
)

// parseCacheBytes bounds the parse cache by the estimated memory of the
// parsed notes it holds (source bytes plus their headings and links).
//
// Why a cache at all: under load (bench -only http, 8 clients reading the
// laws corpus) read_note spent most of its CPU in goldmark re-parsing notes
// of up to 2.2 MB on every read, at ~15 MB/s (LIBRARIES.md §3.3), while
// hashing the same bytes for the version runs at ~1.5 GB/s. 64 MB keeps the
// hot notes of a large vault parsed at a fraction of the index's memory.
const parseCacheBytes = 64 << 20

// docs is the process's parse cache, shared by every vault.Vault: a parse
// depends on the bytes only, and the key is their SHA-256.
var docs = newParseCache(parseCacheBytes)

// ParseCached is Parse for bytes that were likely parsed before — a note
// just read, written or indexed — remembering the result. The Doc may be
// shared with every other caller that parses the same bytes: it must not be
// modified, nor src after the call.
func ParseCached(src []byte) *Doc { return docs.parse(Version(src), src) }

// ParseCachedVersion is ParseCached for bytes whose Version the caller
// has already computed: a note read from disk is hashed once.
func ParseCachedVersion(src []byte, ver string) *Doc { return docs.parse(ver, src) }

// parseCache maps a note's version (hex SHA-256 of its bytes) to its parsed
// Doc, least recently used evicted first. Cached Docs are shared by every
// caller that reads the same bytes, so a Doc must be treated as immutable
// once built — which every caller does: nothing in vault, index, rules or
// mcpserver assigns to a Doc's fields or writes into its slices (Src,
// Headings, Links, Tags, Aliases, Frontmatter).
type parseCache struct {
	mu    sync.Mutex
	max   int64
	size  int64
	byVer map[string]*list.Element // of *parsedDoc
	lru   list.List                // front: most recently used
}

type parsedDoc struct {
	ver  string
	doc  *Doc
	cost int64
}

func newParseCache(max int64) *parseCache {
	return &parseCache{max: max, byVer: make(map[string]*list.Element)}
}

// parse returns the Doc of src, whose version is ver: the cached one when
// these bytes were parsed before, else Parse(src), remembered.
func (c *parseCache) parse(ver string, src []byte) *Doc {
	if d := c.get(ver); d != nil {
		return d
	}
	d := Parse(src)
	c.put(ver, d)
	return d
}

func (c *parseCache) get(ver string) *Doc {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byVer[ver]
	if !ok {
		return nil
	}
	c.lru.MoveToFront(e)
	return e.Value.(*parsedDoc).doc
}

func (c *parseCache) put(ver string, d *Doc) {
	cost := docCost(d)
	if cost > c.max/4 {
		return // one huge note must not flush every other
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.byVer[ver]; ok {
		return // parsed meanwhile by a concurrent reader of the same bytes
	}
	c.byVer[ver] = c.lru.PushFront(&parsedDoc{ver: ver, doc: d, cost: cost})
	c.size += cost
	for c.size > c.max {
		e := c.lru.Back()
		p := e.Value.(*parsedDoc)
		c.lru.Remove(e)
		delete(c.byVer, p.ver)
		c.size -= p.cost
	}
}

// len and bytes report the cache's contents (tests).
func (c *parseCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len()
}

func (c *parseCache) bytes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.size
}

// docCost estimates the memory of a parsed note: its bytes, and its
// headings and links with their strings (a rough per-item figure; the
// bound needs to be right in magnitude, not exact).
func docCost(d *Doc) int64 {
	const fixed, perHeading, perLink, perTag = 512, 160, 160, 48
	return int64(cap(d.Src)) + fixed +
		int64(len(d.Headings))*perHeading + int64(len(d.Links))*perLink +
		int64(len(d.Tags)+len(d.Aliases))*perTag
}
