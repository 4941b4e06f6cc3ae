package booking

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/catalog"
	"github.com/tradewind/tradewind/internal/store"
)

// TestItemCacheBounded: however many items are quoted, the cache keeps at most its
// entries and quoteCacheBytes of documents; a document that changed is decoded again.
func TestItemCacheBounded(t *testing.T) {
	t.Parallel()
	c := newItemCache(10)
	item := func(id int64, name string) *store.Item {
		return &store.Item{Kind: tradewind.ProductHotel, ID: id, Data: fmt.Appendf(nil, `{"id":%d,"name":%q}`, id, name)}
	}
	for id := range int64(100) {
		v, err := c.decode(item(id, "a"))
		if err != nil || v.(*catalog.Hotel).ID != id {
			t.Fatalf("decode %d = %v, %v", id, v, err)
		}
		if n := c.len(); n > 10 {
			t.Fatalf("%d entries, at most 10", n)
		}
	}
	first, _ := c.decode(item(7, "a"))
	if again, _ := c.decode(item(7, "a")); again != first {
		t.Error("the same document should be decoded once")
	}
	if changed, _ := c.decode(item(7, "b")); changed == first || changed.(*catalog.Hotel).Name != "b" {
		t.Errorf("a changed document read %+v", changed)
	}
	// The byte bound: documents of a sixteenth of it each, many entries allowed.
	c = newItemCache(1000)
	big := bytes.Repeat([]byte("x"), quoteCacheBytes/16-100)
	for id := range int64(40) {
		if _, err := c.decode(&store.Item{Kind: tradewind.ProductHotel, ID: id, Data: fmt.Appendf(nil, `{"id":%d,"name":"%s"}`, id, big)}); err != nil {
			t.Fatal(err)
		}
		c.mu.Lock()
		n, b := len(c.m), c.bytes
		c.mu.Unlock()
		if b > quoteCacheBytes || n > 16 {
			t.Fatalf("%d entries of %d bytes, at most %d bytes", n, b, quoteCacheBytes)
		}
	}
}
