package booking

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/money"
	"github.com/tradewind/tradewind/internal/security"
	"github.com/tradewind/tradewind/internal/store"
)

// PartnerParams are the contract fields an operator sets; nil leaves a field as it is
// (on create: its default).
type PartnerParams struct {
	PricingMode      *string
	MarkupPercent    *string // decimal percent, e.g. "12.5"
	Currency         *string
	CreditLimit      *string // decimal amount in Currency
	RateLimit        *int
	AllowIPs         []string // replaces the list when non-nil
	RequireMTLS      *bool
	CertFingerprints []string // replaces the list when non-nil
	RequireSignature *bool
	Blocked          *bool
	// RotateSigningSecret issues a new signing secret; the old one stays valid for
	// SecretOverlap (default 24 h).
	RotateSigningSecret bool
	SecretOverlap       time.Duration
}

// DefaultRateLimit is the default request budget per partner per minute.
const DefaultRateLimit = 120

// CreatePartner signs a new partner contract. The signing secret, when signing is
// required, is in the returned partner and shown only now.
func (s *Service) CreatePartner(ctx context.Context, name string, p PartnerParams) (*tradewind.Partner, error) {
	name = strings.TrimSpace(name)
	if name == "" || len(name) > 100 {
		return nil, tradewind.Invalid([]string{"name: 1–100 characters required"})
	}
	pt := &tradewind.Partner{Name: name, PricingMode: tradewind.PricingNet, Currency: "EUR", RateLimit: DefaultRateLimit, CreatedAt: s.now()}
	if err := s.applyPartner(pt, p); err != nil {
		return nil, err
	}
	if err := s.Store.PartnerCreate(ctx, pt); err != nil {
		if errors.Is(err, store.ErrConflict) {
			return nil, tradewind.Invalid([]string{fmt.Sprintf("name: a partner named %q exists already", name)})
		}
		return nil, err
	}
	return pt, nil
}

// UpdatePartner changes a partner's contract.
func (s *Service) UpdatePartner(ctx context.Context, name string, p PartnerParams) (*tradewind.Partner, error) {
	ch, err := s.ChangePartner(ctx, name, p)
	return ch.Partner, err
}

// PartnerChange is an updated partner and whether the update issued a new signing
// secret (a rotation, or a first signature requirement), which is shown only now.
type PartnerChange struct {
	Partner      *tradewind.Partner
	SecretIssued bool
}

// ChangePartner is UpdatePartner telling whether it issued a signing secret.
func (s *Service) ChangePartner(ctx context.Context, name string, p PartnerParams) (ch PartnerChange, err error) {
	err = s.Store.InTx(ctx, func(tx store.Querier) error {
		pt, err := tx.PartnerGetByName(ctx, name)
		if err != nil {
			return mapNotFound(err, "Partner "+name)
		}
		if p.Currency != nil && *p.Currency != pt.Currency && pt.CreditUsed > 0 {
			return tradewind.Invalid([]string{"currency: cannot change while credit is drawn"})
		}
		before := pt.SigningSecret
		if err := s.applyPartner(pt, p); err != nil {
			return err
		}
		ch = PartnerChange{Partner: pt, SecretIssued: pt.SigningSecret != before}
		return tx.PartnerUpdate(ctx, pt)
	})
	if err != nil {
		return PartnerChange{}, err
	}
	return ch, nil
}

func (s *Service) applyPartner(pt *tradewind.Partner, p PartnerParams) error {
	var errs problems
	if p.PricingMode != nil {
		mode := tradewind.PricingMode(*p.PricingMode)
		if mode != tradewind.PricingNet && mode != tradewind.PricingMarkup {
			errs.add("pricing-mode: net or markup")
		}
		pt.PricingMode = mode
	}
	if p.MarkupPercent != nil {
		bp, err := money.ParsePercentBP(*p.MarkupPercent)
		if err != nil || bp < 0 || bp > 100000 {
			errs.add("markup-percent: a percent from 0 to 1000 with at most two decimals")
		}
		pt.MarkupBP = bp
	}
	if p.Currency != nil {
		if *p.Currency != pt.Currency && p.CreditLimit == nil && pt.CreditLimit != 0 {
			// The limit is held in minor units of its currency: read in another one it
			// would silently become another amount.
			errs.add("credit-limit: give the limit in %s too when changing the currency", *p.Currency)
		}
		if !money.ValidCurrency(*p.Currency) {
			errs.add("currency: %q is not an ISO 4217 code", *p.Currency)
		}
		pt.Currency = *p.Currency
	}
	if p.CreditLimit != nil {
		v, err := money.ParseDecimal(*p.CreditLimit, pt.Currency)
		if err != nil || v < 0 {
			errs.add("credit-limit: a non-negative amount in %s", pt.Currency)
		}
		pt.CreditLimit = v
	}
	if p.RateLimit != nil {
		if *p.RateLimit < 1 || *p.RateLimit > 1000000 {
			errs.add("rate-limit: 1–1000000 requests per minute")
		}
		pt.RateLimit = *p.RateLimit
	}
	if p.AllowIPs != nil {
		if _, err := security.ParseAllowlist(p.AllowIPs); err != nil {
			errs.add("allow-ip: %v", err)
		}
		pt.AllowIPs = p.AllowIPs
	}
	if p.CertFingerprints != nil {
		pins := []string{}
		for _, f := range p.CertFingerprints {
			n, err := security.NormalizeFingerprint(f)
			if err != nil {
				errs.add("cert-fingerprint: %q is not a SHA-256 fingerprint (64 hex digits)", f)
			}
			pins = append(pins, n)
		}
		pt.CertFingerprints = pins
	}
	if p.RequireMTLS != nil {
		pt.RequireMTLS = *p.RequireMTLS
	}
	if p.Blocked != nil {
		pt.Blocked = *p.Blocked
	}
	if p.RequireSignature != nil {
		pt.RequireSignature = *p.RequireSignature
	}
	if len(errs) > 0 {
		return errs.err()
	}
	if p.RotateSigningSecret && pt.SigningSecret != "" {
		overlap := p.SecretOverlap
		if overlap <= 0 {
			overlap = 24 * time.Hour
		}
		pt.PrevSigningSecret, pt.PrevSecretUntil = pt.SigningSecret, s.now().Add(overlap)
		pt.SigningSecret = ""
	}
	if pt.SigningSecret == "" && (pt.RequireSignature || p.RotateSigningSecret) {
		secret, err := security.GenerateSecret(security.SecretPrefixSigning)
		if err != nil {
			return err
		}
		pt.SigningSecret = secret
	}
	return nil
}

// SigningSecrets returns the secrets that verify the partner's request signatures now:
// the current one and, during a rotation's overlap, the previous one.
func (s *Service) SigningSecrets(p *tradewind.Partner) []string {
	out := []string{}
	if p.SigningSecret != "" {
		out = append(out, p.SigningSecret)
	}
	if p.PrevSigningSecret != "" && s.now().Before(p.PrevSecretUntil) {
		out = append(out, p.PrevSigningSecret)
	}
	return out
}

// KeyParams describe a key to issue.
type KeyParams struct {
	Mode      string
	Scopes    []string // empty: all five
	Products  []string // empty: all four
	ExpiresAt time.Time
}

// IssueKey issues a key for the partner and returns it with its secret, shown only now.
func (s *Service) IssueKey(ctx context.Context, partnerName string, kp KeyParams) (*tradewind.APIKey, string, error) {
	var errs problems
	if kp.Mode != string(tradewind.ModeTest) && kp.Mode != string(tradewind.ModeLive) {
		errs.add("mode: test or live")
	}
	scopes := tradewind.AllScopes
	if len(kp.Scopes) > 0 {
		scopes = nil
	}
	for _, name := range kp.Scopes {
		sc := tradewind.Scope(name)
		if !slices.Contains(tradewind.AllScopes, sc) {
			errs.add("scope: %q is not one of %s", sc, joinNames(tradewind.AllScopes, ", "))
		}
		scopes = append(scopes, sc)
	}
	var products []tradewind.ProductType
	if len(kp.Products) == 0 {
		products = tradewind.AllProducts
	}
	for _, p := range kp.Products {
		if !tradewind.ProductType(p).Valid() {
			errs.add("product: %q is not one of hotel, activity, rental, package", p)
		}
		products = append(products, tradewind.ProductType(p))
	}
	if !kp.ExpiresAt.IsZero() && !kp.ExpiresAt.After(s.now()) {
		errs.add("expires: must be in the future")
	}
	if len(errs) > 0 {
		return nil, "", errs.err()
	}
	pt, err := s.Store.PartnerGetByName(ctx, partnerName)
	if err != nil {
		return nil, "", mapNotFound(err, "Partner "+partnerName)
	}
	secret, err := security.GenerateKey(kp.Mode)
	if err != nil {
		return nil, "", err
	}
	k := &tradewind.APIKey{PartnerID: pt.ID, Prefix: security.KeyDisplayPrefix(secret), Hash: security.HashKey(secret),
		Mode: tradewind.Mode(kp.Mode), Scopes: scopes, Products: products, ExpiresAt: kp.ExpiresAt, CreatedAt: s.now()}
	if err := s.Store.KeyCreate(ctx, k); err != nil {
		return nil, "", err
	}
	return k, secret, nil
}

// joinNames lists named strings (scopes, event types) for a message or a log.
func joinNames[S ~string](l []S, sep string) string {
	names := make([]string, len(l))
	for i, s := range l {
		names[i] = string(s)
	}
	return strings.Join(names, sep)
}

// The operator's reads and one-row changes. They go through the service, like the
// partner API, so that a missing row is a not_found *tradewind.Error and any other
// failure (a database that does not answer, a corrupt row) comes back as itself.

// Partner returns the partner named name. not_found.
func (s *Service) Partner(ctx context.Context, name string) (*tradewind.Partner, error) {
	p, err := s.Store.PartnerGetByName(ctx, name)
	if err != nil {
		return nil, mapNotFound(err, "Partner "+name)
	}
	return p, nil
}

// Partners returns every partner by name.
func (s *Service) Partners(ctx context.Context) ([]*tradewind.Partner, error) {
	return s.Store.PartnerList(ctx)
}

// PartnerKeys returns the partner named name and its keys, oldest first. not_found.
func (s *Service) PartnerKeys(ctx context.Context, name string) (*tradewind.Partner, []*tradewind.APIKey, error) {
	p, err := s.Partner(ctx, name)
	if err != nil {
		return nil, nil, err
	}
	keys, err := s.Store.KeyListByPartner(ctx, p.ID)
	return p, keys, err
}

// RevokeKey revokes the key now; revoking a revoked key again is no error. not_found.
func (s *Service) RevokeKey(ctx context.Context, id int64) error {
	return mapNotFound(s.Store.KeyRevoke(ctx, id, s.now()), fmt.Sprintf("Key %d", id))
}

// DeliveryQuery selects webhook deliveries for the operator, newest first.
type DeliveryQuery struct {
	PartnerName string // "": every partner
	EventID     string
	Status      string
	Limit       int
}

// DeliveryReport is what the operator sees of webhook deliveries: each delivery, its
// attempts oldest first, and the names of the partners they belong to.
type DeliveryReport struct {
	Deliveries   []*store.Delivery
	Attempts     map[int64][]*store.DeliveryAttempt // by delivery id
	PartnerNames map[int64]string
}

// Deliveries lists webhook deliveries with their attempts. not_found for an unknown
// partner name.
func (s *Service) Deliveries(ctx context.Context, q DeliveryQuery) (*DeliveryReport, error) {
	partners, err := s.Store.PartnerList(ctx)
	if err != nil {
		return nil, err
	}
	r := &DeliveryReport{PartnerNames: map[int64]string{}}
	var partnerID int64
	for _, p := range partners {
		r.PartnerNames[p.ID] = p.Name
		if p.Name == q.PartnerName {
			partnerID = p.ID
		}
	}
	if q.PartnerName != "" && partnerID == 0 {
		return nil, notFound("Partner " + q.PartnerName)
	}
	r.Deliveries, err = s.Store.DeliveryList(ctx, store.DeliveryFilter{PartnerID: partnerID, EventID: q.EventID, Status: q.Status, Limit: q.Limit})
	if err != nil {
		return nil, err
	}
	if r.Attempts, err = s.attemptsByDelivery(ctx, r.Deliveries); err != nil {
		return nil, err
	}
	return r, nil
}

// Redeliver makes an event due again for every active subscription that had a delivery
// of it and returns how many are due. not_found for an unknown event.
func (s *Service) Redeliver(ctx context.Context, eventID string) (int, error) {
	var n int
	err := s.Store.InTx(ctx, func(q store.Querier) (err error) {
		n, err = q.DeliveryRedeliver(ctx, store.DeliveryRedeliverParams{EventID: eventID, Now: s.now()})
		return err
	})
	return n, mapNotFound(err, "Event "+eventID)
}
