package store

import "time"

// SignatureRecordParams name an accepted request signature and until when it must be
// refused if seen again (its validity window, plus a margin for clock differences).
type SignatureRecordParams struct {
	PartnerID int64
	Hash      string // hex SHA-256 of the signature's bytes, never the signature itself
	ExpiresAt time.Time
}

// SignatureDeleteExpiredParams select at most Limit records expired at Now.
type SignatureDeleteExpiredParams struct {
	Now   time.Time
	Limit int
}
