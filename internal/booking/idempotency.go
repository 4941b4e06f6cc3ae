package booking

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/store"
)

// An Idempotency-Key is scoped to the partner and the key's mode (decisions.md): a key a
// test key used never answers a live request, nor the reverse. The booking it created
// keeps a fingerprint of the request (Booking.RequestHash), so that a retry (the same
// request) answers the booking, and a different request with the key is told it is a
// client bug. Bookings made before migration 00031 have theirs in the key's record
// (idempotency_keys), which the retention job deletes after 7 days.

// requestHash fingerprints a booking request: SHA-256 of the request re-encoded from
// its decoded form. Two bodies that decode to the same request (key order, whitespace,
// a field sent with its default value) have the same fingerprint.
func requestHash(req *BookRequest) string {
	raw, err := json.Marshal(req)
	if err != nil {
		panic(err) // a BookRequest is plain data: it always encodes
	}
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:])
}

// replayOf returns the booking the caller's key already created in the caller's mode:
// store.ErrNotFound when it created none, 422 idempotency_key_reused when it was
// created by another request than the one hash fingerprints. A booking made before
// migration 00031 is checked against its key's record; one whose record was made before
// requests were fingerprinted (empty hash), or was deleted after its retention, answers
// the booking: the key stays bound to it, never books twice.
func (s *Service) replayOf(ctx context.Context, db store.Querier, c *Caller, key, hash string) (*tradewind.Booking, error) {
	b, err := db.BookingGetByIdempotencyKey(ctx, c.Partner.ID, c.Key.Mode, key)
	if err != nil {
		return nil, err
	}
	was := b.RequestHash
	if was == "" {
		rec, err := db.IdempotencyGet(ctx, c.Partner.ID, c.Key.Mode, key)
		switch {
		case errors.Is(err, store.ErrNotFound):
		case err != nil:
			return nil, err
		default:
			was = rec.RequestHash
		}
	}
	if was != "" && was != hash {
		return nil, tradewind.Errorf(tradewind.ECodeIdempotencyKeyReused,
			"The Idempotency-Key was already used by a different request, which created booking %s; send a new key for a new booking.", b.Reference)
	}
	return b, nil
}
