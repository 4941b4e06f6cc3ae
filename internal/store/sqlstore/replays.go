package sqlstore

import (
	"context"

	"github.com/tradewind/tradewind/internal/store"
)

func (q *queries) SignatureRecord(ctx context.Context, p store.SignatureRecordParams) (bool, error) {
	// ON CONFLICT DO NOTHING: of two servers recording the same signature at once,
	// exactly one inserts the row (one row affected); the other sees zero.
	n, err := q.exec(ctx, `INSERT INTO signature_replays (partner_id, sig_hash, expires_at) VALUES ($1, $2, $3)
		ON CONFLICT (partner_id, sig_hash) DO NOTHING`, p.PartnerID, p.Hash, ts(p.ExpiresAt))
	return n == 1, err
}

func (q *queries) SignatureDeleteExpired(ctx context.Context, p store.SignatureDeleteExpiredParams) (int64, error) {
	// Bounded batches: the subquery's LIMIT (DELETE … LIMIT is not portable).
	return q.exec(ctx, `DELETE FROM signature_replays WHERE (partner_id, sig_hash) IN
		(SELECT partner_id, sig_hash FROM signature_replays WHERE expires_at <= $1 LIMIT $2)`, ts(p.Now), p.Limit)
}
