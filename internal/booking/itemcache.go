package booking

import (
	"bytes"
	"sync"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/store"
)

// DefaultQuoteCacheItems is how many decoded catalog items a service keeps for its
// quotes (Service.QuoteCacheItems 0): the whole catalog (31 000 items), about
// 30 MB of stored documents.
const DefaultQuoteCacheItems = 32 << 10

// quoteCacheBytes bounds the stored documents an itemCache keeps, whatever their
// number: an entry past it evicts others.
const quoteCacheBytes = 64 << 20

// itemCache keeps catalog items decoded (DecodeItem), each with the stored document it
// was decoded from, so that a quote, which reads the item from the store every time,
// decodes it only when the stored document differs from the one decoded before: the
// store stays the truth, the cache saves only the decoding. It holds catalog items
// only, which every partner reads alike (no price of a partner, no partner's data),
// and at most max entries and quoteCacheBytes of documents, whatever the requests: an
// entry is added only for an item the store returned, and a full cache drops entries
// to make room. The decoded values are shared: read only, as the read model's are.
type itemCache struct {
	mu    sync.Mutex
	max   int
	bytes int
	m     map[itemKey]*cachedItem
}

type itemKey struct {
	kind tradewind.ProductType
	id   int64
}

type cachedItem struct {
	data []byte // the stored document v was decoded from
	v    any
}

func newItemCache(max int) *itemCache {
	return &itemCache{max: max, m: make(map[itemKey]*cachedItem)}
}

// decode returns it decoded (DecodeItem): the value decoded before when its stored
// document is byte for byte the one decoded then, else a new decoding, kept.
func (c *itemCache) decode(it *store.Item) (any, error) {
	k := itemKey{it.Kind, it.ID}
	c.mu.Lock()
	e := c.m[k]
	c.mu.Unlock()
	if e != nil && bytes.Equal(e.data, it.Data) {
		return e.v, nil
	}
	v, err := DecodeItem(it)
	if err != nil {
		return nil, err
	}
	c.put(k, &cachedItem{data: it.Data, v: v})
	return v, nil
}

// put keeps e for k, replacing what k held and dropping other entries (any: the
// map's order) while the cache would hold more than its bounds.
func (c *itemCache) put(k itemKey, e *cachedItem) {
	if len(e.data) > quoteCacheBytes/16 {
		return // a document this large is decoded every time
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old := c.m[k]; old != nil {
		c.bytes -= len(old.data)
		delete(c.m, k)
	}
	for other, o := range c.m {
		if len(c.m) < c.max && c.bytes+len(e.data) <= quoteCacheBytes {
			break
		}
		c.bytes -= len(o.data)
		delete(c.m, other)
	}
	c.m[k] = e
	c.bytes += len(e.data)
}

// len is the number of entries, for tests.
func (c *itemCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}

// quoteItems is the service's cache of decoded items for its quotes, nil when
// QuoteCacheItems is negative.
func (s *Service) quoteItems() *itemCache {
	s.itemsOnce.Do(func() {
		n := s.QuoteCacheItems
		if n == 0 {
			n = DefaultQuoteCacheItems
		}
		if n > 0 {
			s.items = newItemCache(n)
		}
	})
	return s.items
}
