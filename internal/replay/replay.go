// Package replay remembers the signatures of state-changing requests for as long as they
// verify, so that a captured signed request is accepted once (decisions.md, "Request
// signing"). The record is shared by every server: in the database (Store) or in Redis
// (Redis, with the database as its fallback while Redis is unreachable).
package replay

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tradewind/tradewind/internal/store"
)

// Ledger records signatures.
type Ledger interface {
	// First records the partner's signature (its raw bytes) until expires and reports
	// whether this was its first use; false means the signature was seen before: a replay.
	First(ctx context.Context, partnerID int64, signature []byte, expires time.Time) (bool, error)
}

// hash is what is stored of a signature: its SHA-256 in hex, never the signature itself.
func hash(signature []byte) string {
	sum := sha256.Sum256(signature)
	return hex.EncodeToString(sum[:])
}

// sweepBatch bounds the expired records one Store.First deletes.
const sweepBatch = 100

// Store keeps the records in the database's signature_replays table.
type Store struct {
	st  store.Store
	now func() time.Time
}

// NewStore returns a ledger over st on the clock now. Each First also deletes up to 100
// expired records, so the table holds about one validity window of state-changing requests.
func NewStore(st store.Store, now func() time.Time) *Store { return &Store{st: st, now: now} }

// First implements Ledger.
func (s *Store) First(ctx context.Context, partnerID int64, signature []byte, expires time.Time) (bool, error) {
	if _, err := s.st.SignatureDeleteExpired(ctx, store.SignatureDeleteExpiredParams{Now: s.now(), Limit: sweepBatch}); err != nil {
		return false, fmt.Errorf("replay: delete expired: %w", err)
	}
	ok, err := s.st.SignatureRecord(ctx, store.SignatureRecordParams{PartnerID: partnerID, Hash: hash(signature), ExpiresAt: expires})
	if err != nil {
		return false, fmt.Errorf("replay: record: %w", err)
	}
	return ok, nil
}

// Redis keeps each record as a key "replay:<partner id>:<hash>" that Redis expires itself.
type Redis struct {
	client redis.UniversalClient
	now    func() time.Time
}

// NewRedis returns a ledger in Redis on the clock now.
func NewRedis(client redis.UniversalClient, now func() time.Time) *Redis {
	return &Redis{client: client, now: now}
}

// First implements Ledger with one SET NX PX: of two servers recording the same
// signature, exactly one sets the key.
func (r *Redis) First(ctx context.Context, partnerID int64, signature []byte, expires time.Time) (bool, error) {
	ttl := max(expires.Sub(r.now()), time.Millisecond)
	key := "replay:" + strconv.FormatInt(partnerID, 10) + ":" + hash(signature)
	ok, err := r.client.SetNX(ctx, key, 1, ttl).Result()
	if err != nil {
		return false, fmt.Errorf("replay: redis: %w", err)
	}
	return ok, nil
}

// fallback is the Ledger returned by WithFallback.
type fallback struct {
	primary, secondary Ledger
	logger             *slog.Logger
	now                func() time.Time

	mu       sync.Mutex
	lastWarn time.Time
}

// warnEvery is the least time between two "primary unavailable" warnings.
const warnEvery = 30 * time.Second

// WithFallback returns a ledger that records in primary (Redis) and, when primary fails,
// in secondary (the database), so that the protection holds during a Redis outage; a
// signature recorded in Redis before the outage is not known to the database, which is
// the one gap. Outages are logged at most every 30 s. Errors after the caller's context
// ended are returned as they are.
func WithFallback(primary, secondary Ledger, logger *slog.Logger, now func() time.Time) Ledger {
	return &fallback{primary: primary, secondary: secondary, logger: logger, now: now}
}

func (f *fallback) First(ctx context.Context, partnerID int64, signature []byte, expires time.Time) (bool, error) {
	ok, err := f.primary.First(ctx, partnerID, signature, expires)
	if err == nil || ctx.Err() != nil {
		return ok, err
	}
	f.mu.Lock()
	warn := f.lastWarn.IsZero() || f.now().Sub(f.lastWarn) >= warnEvery
	if warn {
		f.lastWarn = f.now()
	}
	f.mu.Unlock()
	if warn {
		f.logger.WarnContext(ctx, "replay records unavailable in Redis; using the database", "err", err)
	}
	ok, err2 := f.secondary.First(ctx, partnerID, signature, expires)
	if err2 != nil {
		return false, errors.Join(err, err2)
	}
	return ok, nil
}
