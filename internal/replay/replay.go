// Package replay remembers the signatures of state-changing requests for as long as they
// verify, so that a captured signed request is accepted once (decisions.md, "Request
// signing"). The record is shared by every server: in the database (Store) or, with
// --redis, in Redis (Redis) alone. A ledger that cannot answer fails closed: the request is
// refused (503), never accepted unchecked, since a record it holds is known nowhere else.
package replay

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
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

// First implements Ledger. The sweep and the record commit together: one COMMIT for
// every signed request, which on SQLite is one sync of the WAL (sqlite.Durable), where
// two statements in autocommit paid two, one after the other on the one writer.
func (s *Store) First(ctx context.Context, partnerID int64, signature []byte, expires time.Time) (first bool, err error) {
	err = s.st.InTx(ctx, func(q store.Querier) error {
		if _, err := q.SignatureDeleteExpired(ctx, store.SignatureDeleteExpiredParams{Now: s.now(), Limit: sweepBatch}); err != nil {
			return fmt.Errorf("replay: delete expired: %w", err)
		}
		ok, err := q.SignatureRecord(ctx, store.SignatureRecordParams{PartnerID: partnerID, Hash: hash(signature), ExpiresAt: expires})
		if err != nil {
			return fmt.Errorf("replay: record: %w", err)
		}
		first = ok
		return nil
	})
	return first, err
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

// warnEvery is the least time between two "ledger unavailable" warnings.
const warnEvery = 30 * time.Second

// monitor is the Ledger returned by Monitor.
type monitor struct {
	ledger Ledger
	logger *slog.Logger
	now    func() time.Time
	failed func()

	mu       sync.Mutex
	down     bool      // the last answer was a failure
	lastWarn time.Time // when the last warning was logged (zero: never)
	unwarned int       // failures since that warning
}

// Monitor returns ledger with its failures made visible: each failure (not one after the
// caller's context ended: a client that hung up is no outage) calls failed, when not nil,
// and is logged as a warning at most once per 30 s on the clock now, with the number of
// failures since the previous warning; the first answer after a failure is logged at info
// level. Errors are returned as they are: the caller refuses the request (fails closed).
// Nothing of the signature is logged.
func Monitor(ledger Ledger, logger *slog.Logger, now func() time.Time, failed func()) Ledger {
	return &monitor{ledger: ledger, logger: logger, now: now, failed: failed}
}

func (m *monitor) First(ctx context.Context, partnerID int64, signature []byte, expires time.Time) (bool, error) {
	ok, err := m.ledger.First(ctx, partnerID, signature, expires)
	if err != nil && ctx.Err() != nil {
		return ok, err
	}
	m.mu.Lock()
	wasDown := m.down
	m.down = err != nil
	warn, count := false, 0
	if err != nil {
		m.unwarned++
		if now := m.now(); m.lastWarn.IsZero() || now.Sub(m.lastWarn) >= warnEvery {
			warn, count, m.lastWarn, m.unwarned = true, m.unwarned, now, 0
		}
	}
	m.mu.Unlock()
	switch {
	case err != nil:
		if m.failed != nil {
			m.failed()
		}
		if warn {
			m.logger.WarnContext(ctx, "replay ledger unavailable: signed state-changing requests are refused with 503 until it answers",
				"failures", count, "err", err)
		}
	case wasDown:
		m.logger.InfoContext(ctx, "replay ledger available again")
	}
	return ok, err
}
