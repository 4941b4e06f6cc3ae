package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/store"
)

const partnerColumns = `id, name, pricing_mode, markup_bp, currency, credit_limit, credit_used, blocked,
	rate_limit, allow_ips, require_mtls, cert_fingerprints, require_signature, signing_secret,
	prev_signing_secret, prev_secret_until, status, status_reason, require_two_factor, created_at`

func scanPartner(row interface{ Scan(...any) error }) (*tradewind.Partner, error) {
	var p tradewind.Partner
	var allow, pins string
	var prevUntil sql.NullTime
	err := row.Scan(&p.ID, &p.Name, &p.PricingMode, &p.MarkupBP, &p.Currency, &p.CreditLimit, &p.CreditUsed,
		&p.Blocked, &p.RateLimit, &allow, &p.RequireMTLS, &pins, &p.RequireSignature, &p.SigningSecret,
		&p.PrevSigningSecret, &prevUntil, &p.Status, &p.StatusReason, &p.RequireTwoFactor, &p.CreatedAt)
	if err != nil {
		return nil, err
	}
	// A list that cannot be decoded is an error, never an empty list: an empty allowlist
	// or pin list means "no restriction", so reading it as empty would fail open.
	if p.AllowIPs, err = decodeList[string]("partners.allow_ips", allow); err != nil {
		return nil, err
	}
	if p.CertFingerprints, err = decodeList[string]("partners.cert_fingerprints", pins); err != nil {
		return nil, err
	}
	p.PrevSecretUntil = fromNull(prevUntil)
	p.CreatedAt = p.CreatedAt.UTC()
	return &p, nil
}

// Every list column holds a JSON array of strings (migration 00003 converted the
// comma-joined ones); jsonList writes one and decodeList reads one.
func jsonList[S ~string](l []S) string {
	if l == nil {
		l = []S{}
	}
	b, _ := json.Marshal(l)
	return string(b)
}

// decodeList reads a JSON array column; column names it in the error.
func decodeList[S ~string](column, s string) ([]S, error) {
	var l []S
	if err := json.Unmarshal([]byte(s), &l); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", store.ErrCorrupt, column, err)
	}
	if len(l) == 0 {
		return nil, nil
	}
	return l, nil
}

func (q *queries) PartnerCreate(ctx context.Context, p *tradewind.Partner) error {
	err := q.db.QueryRowContext(ctx, `INSERT INTO partners (name, pricing_mode, markup_bp, currency, credit_limit,
		blocked, rate_limit, allow_ips, require_mtls, cert_fingerprints, require_signature, signing_secret,
		prev_signing_secret, prev_secret_until, created_at, status, status_reason, require_two_factor)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18) RETURNING id`,
		p.Name, p.PricingMode, p.MarkupBP, p.Currency, p.CreditLimit, p.Blocked, p.RateLimit, jsonList(p.AllowIPs),
		p.RequireMTLS, jsonList(p.CertFingerprints), p.RequireSignature, p.SigningSecret, p.PrevSigningSecret,
		ts(p.PrevSecretUntil), ts(p.CreatedAt), partnerStatus(p), p.StatusReason, p.RequireTwoFactor).Scan(&p.ID)
	return q.interpret(err)
}

func (q *queries) PartnerUpdate(ctx context.Context, p *tradewind.Partner) error {
	n, err := q.exec(ctx, `UPDATE partners SET pricing_mode = $2, markup_bp = $3, currency = $4, credit_limit = $5,
		blocked = $6, rate_limit = $7, allow_ips = $8, require_mtls = $9, cert_fingerprints = $10,
		require_signature = $11, signing_secret = $12, prev_signing_secret = $13, prev_secret_until = $14,
		status = $15, status_reason = $16, require_two_factor = $17
		WHERE id = $1`,
		p.ID, p.PricingMode, p.MarkupBP, p.Currency, p.CreditLimit, p.Blocked, p.RateLimit, jsonList(p.AllowIPs),
		p.RequireMTLS, jsonList(p.CertFingerprints), p.RequireSignature, p.SigningSecret, p.PrevSigningSecret,
		ts(p.PrevSecretUntil), partnerStatus(p), p.StatusReason, p.RequireTwoFactor)
	if err != nil {
		return err
	}
	if n == 0 {
		return q.interpret(sql.ErrNoRows)
	}
	return nil
}

// partnerStatus is p's status; a partner created without one is active (the operator's).
func partnerStatus(p *tradewind.Partner) string {
	if p.Status == "" {
		p.Status = tradewind.PartnerActive
	}
	return p.Status
}

func (q *queries) PartnerGetByID(ctx context.Context, id int64) (*tradewind.Partner, error) {
	p, err := scanPartner(q.db.QueryRowContext(ctx, `SELECT `+partnerColumns+` FROM partners WHERE id = $1`, id))
	return p, q.interpret(err)
}

func (q *queries) PartnerGetByName(ctx context.Context, name string) (*tradewind.Partner, error) {
	p, err := scanPartner(q.db.QueryRowContext(ctx, `SELECT `+partnerColumns+` FROM partners WHERE name = $1`, name))
	return p, q.interpret(err)
}

func (q *queries) PartnerList(ctx context.Context) ([]*tradewind.Partner, error) {
	rows, err := q.db.QueryContext(ctx, `SELECT `+partnerColumns+` FROM partners ORDER BY name`)
	if err != nil {
		return nil, q.interpret(err)
	}
	defer rows.Close()
	var out []*tradewind.Partner
	for rows.Next() {
		p, err := scanPartner(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

func (q *queries) PartnerListIDs(ctx context.Context) ([]int64, error) {
	return q.int64s(ctx, `SELECT id FROM partners ORDER BY id`)
}

func (q *queries) int64s(ctx context.Context, query string, args ...any) ([]int64, error) {
	rows, err := q.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, q.interpret(err)
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// The credit moves, each one conditional statement on the partner ($1) and amount ($2);
// CreditMove (portal.go) also uses them.
const (
	creditDraw = `UPDATE partners SET credit_used = credit_used + $2
		WHERE id = $1 AND NOT blocked AND credit_used + $2 <= credit_limit`
	creditRelease = `UPDATE partners SET credit_used = CASE WHEN credit_used >= $2 THEN credit_used - $2 ELSE 0 END
		WHERE id = $1`
)

func (q *queries) CreditDraw(ctx context.Context, partnerID, amount int64) (bool, error) {
	n, err := q.exec(ctx, creditDraw, partnerID, amount)
	return n == 1, err
}

func (q *queries) CreditRelease(ctx context.Context, partnerID, amount int64) error {
	_, err := q.exec(ctx, creditRelease, partnerID, amount)
	return err
}

const keyColumns = `id, partner_id, prefix, hash, mode, scopes, products, expires_at, revoked_at, created_at, last_used_at`

func scanKey(row interface{ Scan(...any) error }) (*tradewind.APIKey, error) {
	var k tradewind.APIKey
	var scopes, products string
	var expires, revoked, used sql.NullTime
	if err := row.Scan(&k.ID, &k.PartnerID, &k.Prefix, &k.Hash, &k.Mode, &scopes, &products, &expires, &revoked, &k.CreatedAt, &used); err != nil {
		return nil, err
	}
	var err error
	if k.Scopes, err = decodeList[tradewind.Scope]("api_keys.scopes", scopes); err != nil {
		return nil, err
	}
	if k.Products, err = decodeList[tradewind.ProductType]("api_keys.products", products); err != nil {
		return nil, err
	}
	k.ExpiresAt, k.RevokedAt, k.CreatedAt, k.LastUsedAt = fromNull(expires), fromNull(revoked), k.CreatedAt.UTC(), fromNull(used)
	return &k, nil
}

func (q *queries) KeyCreate(ctx context.Context, k *tradewind.APIKey) error {
	err := q.db.QueryRowContext(ctx, `INSERT INTO api_keys (partner_id, prefix, hash, mode, scopes, products, expires_at, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id`,
		k.PartnerID, k.Prefix, k.Hash, string(k.Mode), jsonList(k.Scopes), jsonList(k.Products),
		ts(k.ExpiresAt), ts(k.CreatedAt)).Scan(&k.ID)
	return q.interpret(err)
}

func (q *queries) KeyGetByHash(ctx context.Context, hash string) (*tradewind.APIKey, error) {
	k, err := scanKey(q.db.QueryRowContext(ctx, `SELECT `+keyColumns+` FROM api_keys WHERE hash = $1`, hash))
	return k, q.interpret(err)
}

func (q *queries) KeyGetByID(ctx context.Context, id int64) (*tradewind.APIKey, error) {
	k, err := scanKey(q.db.QueryRowContext(ctx, `SELECT `+keyColumns+` FROM api_keys WHERE id = $1`, id))
	return k, q.interpret(err)
}

func (q *queries) KeyListByPartner(ctx context.Context, partnerID int64) ([]*tradewind.APIKey, error) {
	rows, err := q.db.QueryContext(ctx, `SELECT `+keyColumns+` FROM api_keys WHERE partner_id = $1 ORDER BY id`, partnerID)
	if err != nil {
		return nil, q.interpret(err)
	}
	defer rows.Close()
	var out []*tradewind.APIKey
	for rows.Next() {
		k, err := scanKey(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

func (q *queries) KeyRevoke(ctx context.Context, id int64, at time.Time) error {
	n, err := q.exec(ctx, `UPDATE api_keys SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL`, id, ts(at))
	if err != nil {
		return err
	}
	if n == 0 {
		if _, err := q.KeyGetByID(ctx, id); err != nil {
			return err
		}
	}
	return nil
}

// KeyLastUsedSet writes one conditional statement per key: a batch holds at most one use
// per key a server saw in its flush interval.
func (q *queries) KeyLastUsedSet(ctx context.Context, uses []store.KeyUse) error {
	for _, u := range uses {
		if _, err := q.exec(ctx, `UPDATE api_keys SET last_used_at = $2 WHERE id = $1
			AND (last_used_at IS NULL OR last_used_at < $2)`, u.KeyID, ts(u.At)); err != nil {
			return err
		}
	}
	return nil
}

func (q *queries) AuthVersion(ctx context.Context) (int64, error) {
	var v int64
	err := q.db.QueryRowContext(ctx, `SELECT version FROM auth_version WHERE id = 1`).Scan(&v)
	return v, q.interpret(err)
}
