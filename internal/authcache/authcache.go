// Package authcache serves the API key and the partner of every partner API request from
// memory, and records when each key was last used without a write per request.
//
// Freshness: the store's AuthVersion moves whenever a key or a partner changes in a way
// that decides a request, whichever process changed it (triggers of migration 00011).
// Run reads it every PollInterval and drops the whole cache when it moved. An entry is
// served only while the last successful poll started less than MaxStale ago, so a revoked
// key or a blocked partner is refused within MaxStale + a poll's duration (< 1 s) even if
// the poller falls behind or the database stops answering; until Run has polled once,
// every lookup goes to the store.
//
// Last use: KeyUsed keeps the latest time per key in memory; Run writes them in one
// transaction every FlushInterval and when it stops.
package authcache

import (
	"cmp"
	"context"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/store"
)

const (
	// PollInterval is how often Run reads the store's AuthVersion.
	PollInterval = 200 * time.Millisecond
	// MaxStale is how old the last successful poll may be for cached entries to be used.
	MaxStale = 700 * time.Millisecond
	// FlushInterval is how often Run writes the keys' last uses.
	FlushInterval = 30 * time.Second
	// MaxEntries bounds each map; past it, lookups go to the store until the next flush.
	MaxEntries = 100_000
)

// Cache is the key and partner cache of one server. Its zero value is not usable: New.
type Cache struct {
	store  store.Store
	logger *slog.Logger
	// MaxStale is how old the last successful poll may be for entries to be served
	// (default MaxStale); set it before the cache is used.
	MaxStale time.Duration

	mu       sync.RWMutex
	gen      uint64    // bumped by every drop: a lookup that started before it does not fill
	version  int64     // the AuthVersion the entries were read under
	polled   time.Time // start of the last successful poll; zero: none (nothing is cached)
	keys     map[string]*tradewind.APIKey
	partners map[int64]*tradewind.Partner

	usedMu sync.Mutex
	used   map[int64]time.Time
}

// New returns an empty cache over st.
func New(st store.Store, logger *slog.Logger) *Cache {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Cache{store: st, logger: logger, MaxStale: MaxStale, keys: map[string]*tradewind.APIKey{},
		partners: map[int64]*tradewind.Partner{}, used: map[int64]time.Time{}}
}

// fresh reports whether entries may be served, and the generation a fill must match.
func (c *Cache) fresh() (bool, uint64) {
	return !c.polled.IsZero() && time.Since(c.polled) < c.MaxStale, c.gen
}

// lookup serves m[k] from memory when fresh, else loads it and keeps it unless the cache
// was dropped meanwhile. Callers get a copy: entries are shared.
func lookup[K comparable, V any](ctx context.Context, c *Cache, m map[K]*V, k K, load func(context.Context, K) (*V, error)) (*V, error) {
	c.mu.RLock()
	ok, gen := c.fresh()
	v, hit := m[k]
	c.mu.RUnlock()
	if ok && hit {
		cp := *v
		return &cp, nil
	}
	v, err := load(ctx, k)
	if err != nil {
		return nil, err // not found is not cached: unknown keys are rate-limited instead
	}
	c.mu.Lock()
	if ok && c.gen == gen && len(m) < MaxEntries {
		m[k] = v
	}
	c.mu.Unlock()
	cp := *v
	return &cp, nil
}

// KeyGetByHash returns the key with that hash, as store.Querier does.
func (c *Cache) KeyGetByHash(ctx context.Context, hash string) (*tradewind.APIKey, error) {
	return lookup(ctx, c, c.keys, hash, c.store.KeyGetByHash)
}

// PartnerGetByID returns the partner, as store.Querier does. Its CreditUsed may be
// stale (a booking does not drop the cache): read the store for credit figures.
func (c *Cache) PartnerGetByID(ctx context.Context, id int64) (*tradewind.Partner, error) {
	return lookup(ctx, c, c.partners, id, c.store.PartnerGetByID)
}

// KeyUsed records that the key authenticated a request at at.
func (c *Cache) KeyUsed(keyID int64, at time.Time) {
	c.usedMu.Lock()
	if prev, ok := c.used[keyID]; !ok || at.After(prev) {
		c.used[keyID] = at
	}
	c.usedMu.Unlock()
}

// Poll reads the AuthVersion once and drops the cache when it moved, when it is the
// first poll, or when the store did not answer (then nothing is served from memory
// until a poll succeeds).
func (c *Cache) Poll(ctx context.Context) error {
	start := time.Now()
	v, err := c.store.AuthVersion(ctx)
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil || c.polled.IsZero() || v != c.version {
		c.gen++
		clear(c.keys)
		clear(c.partners)
		c.polled = time.Time{}
	}
	if err != nil {
		return err
	}
	c.version, c.polled = v, start
	return nil
}

// Flush writes the last uses recorded since the previous flush; on failure they are
// kept for the next one.
func (c *Cache) Flush(ctx context.Context) error {
	c.usedMu.Lock()
	batch := c.used
	c.used = map[int64]time.Time{}
	c.usedMu.Unlock()
	if len(batch) == 0 {
		return nil
	}
	uses := make([]store.KeyUse, 0, len(batch))
	for id, at := range batch {
		uses = append(uses, store.KeyUse{KeyID: id, At: at})
	}
	// One order for every server's batch, so that two batches never wait on each other.
	slices.SortFunc(uses, func(a, b store.KeyUse) int { return cmp.Compare(a.KeyID, b.KeyID) })
	err := c.store.InTx(ctx, func(q store.Querier) error { return q.KeyLastUsedSet(ctx, uses) })
	if err != nil {
		for _, u := range uses {
			c.KeyUsed(u.KeyID, u.At)
		}
	}
	return err
}

// Run polls until ctx ends, writes last uses every FlushInterval, and writes the last
// batch before it returns.
func (c *Cache) Run(ctx context.Context) {
	poll := time.NewTicker(PollInterval)
	defer poll.Stop()
	flush := time.NewTicker(FlushInterval)
	defer flush.Stop()
	failing := false
	for {
		if err := c.Poll(ctx); err != nil && ctx.Err() == nil {
			if !failing { // once per outage, not five times a second
				c.logger.Warn("auth cache: cannot read the auth version; keys and partners are read from the store", "err", err)
			}
			failing = true
		} else {
			failing = false
		}
		select {
		case <-ctx.Done():
			sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if err := c.Flush(sctx); err != nil {
				c.logger.Warn("auth cache: last uses of keys not written at shutdown", "err", err)
			}
			return
		case <-flush.C:
			if err := c.Flush(ctx); err != nil && ctx.Err() == nil {
				c.logger.Warn("auth cache: last uses of keys not written; retrying", "err", err)
			}
		case <-poll.C:
		}
	}
}
