package tools

import (
	"slices"
	"sync"
)

// hitProps and readProps remember the properties shown by hitProperties
// and read_note (readProperties), by frontmatter bytes: the YAML parse was
// a third of a search hit's CPU and a sixth of a read's under load.
var hitProps, readProps propCache

// propCache maps frontmatter bytes to their properties. It holds at most
// propCacheBytes of keys and starts over when full (simpler than tracking
// use; a search touches at most 50 notes, a read one); a frontmatter over
// propCacheMaxKey bytes is not kept.
type propCache struct {
	mu    sync.Mutex
	m     map[string][]PropertyData
	bytes int
}

const (
	propCacheBytes  = 4 << 20
	propCacheMaxKey = 16 << 10
)

// get returns a copy the caller may keep.
func (c *propCache) get(k string) ([]PropertyData, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[k]
	return slices.Clone(v), ok
}

func (c *propCache) put(k string, v []PropertyData) {
	if len(k) > propCacheMaxKey {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || c.bytes+len(k) > propCacheBytes {
		c.m, c.bytes = make(map[string][]PropertyData), 0
	}
	if _, ok := c.m[k]; !ok {
		c.bytes += len(k)
	}
	c.m[k] = slices.Clone(v)
}
