package portal

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/store"
)

// Sign-ups from one client address: at most signupsPerAddress a window.
const (
	signupsPerAddress = 5
	signupWindow      = time.Hour
)

// Signup is the registration form.
type Signup struct {
	Company, Name, Email, Password string
	ClientAddr, UserAgent          string
}

// ErrSignupsClosed: the number of partners waiting for review reached the cap.
var ErrSignupsClosed = &tradewind.Error{Code: tradewind.ECodeUnavailable,
	Message: "Sign-ups are paused while we review the ones we have; please try again later."}

// ErrTooManySignups: the client address signed up too often.
var ErrTooManySignups = &tradewind.Error{Code: tradewind.ECodeRateLimited,
	Message: "Too many sign-ups from your address; please try again in an hour."}

// SignUp registers a company: a pending partner (no API access, no keys) named after
// it, and its owner, signed in at once. It returns the session token.
func (s *Service) SignUp(ctx context.Context, f Signup) (string, *Member, error) {
	var problems []string
	company := strings.TrimSpace(f.Company)
	if company == "" || len(company) > 100 {
		problems = append(problems, "company: 1–100 characters")
	}
	name := strings.TrimSpace(f.Name)
	if name == "" || len(name) > 100 {
		problems = append(problems, "name: 1–100 characters")
	}
	email, p := validEmail(f.Email)
	if p != "" {
		problems = append(problems, p)
	}
	if p := passwordProblem(f.Password, email); p != "" {
		problems = append(problems, p)
	}
	base := partnerName(company)
	if company != "" && base == "" {
		problems = append(problems, "company: must contain letters or digits")
	}
	if len(problems) > 0 {
		return "", nil, invalid(problems...)
	}
	now := s.now()
	hits, _, err := s.store.ThrottleHit(ctx, "signup:address:"+f.ClientAddr, now, signupWindow)
	if err != nil {
		return "", nil, err
	}
	if hits > signupsPerAddress {
		return "", nil, ErrTooManySignups
	}
	hash, err := s.hasher.Hash(f.Password)
	if err != nil {
		return "", nil, err
	}
	var user *store.PortalUser
	err = s.store.InTx(ctx, func(tx store.Querier) error {
		n, err := tx.PartnerCountByStatus(ctx, tradewind.PartnerPending)
		if err != nil {
			return err
		}
		if n >= s.cfg.MaxPending {
			return ErrSignupsClosed
		}
		if _, err := tx.PortalUserGetByEmail(ctx, email); err == nil {
			return invalid("e-mail: an account with this address exists; sign in instead")
		}
		pt, err := s.createPending(ctx, tx, base, now)
		if err != nil {
			return err
		}
		user = &store.PortalUser{PartnerID: pt.ID, Email: email, Name: name, Role: RoleOwner, PasswordHash: hash,
			TimeZone: "UTC", CreatedAt: now, UpdatedAt: now}
		if err := tx.PortalUserCreate(ctx, user); err != nil {
			if errors.Is(err, store.ErrConflict) {
				return invalid("e-mail: an account with this address exists; sign in instead")
			}
			return err
		}
		return s.auditIn(ctx, tx, pt.ID, email, "signup", "company "+company, f.ClientAddr)
	})
	if err != nil {
		return "", nil, err
	}
	s.logger.InfoContext(ctx, "portal sign-up", "partner_id", user.PartnerID)
	return s.openSession(ctx, user, f.ClientAddr, f.UserAgent)
}

// createPending inserts a pending partner named base, or base-2, base-3… when taken.
func (s *Service) createPending(ctx context.Context, tx store.Querier, base string, now time.Time) (*tradewind.Partner, error) {
	for i := 1; i <= 50; i++ {
		name := base
		if i > 1 {
			name = fmt.Sprintf("%s-%d", base, i)
		}
		if _, err := tx.PartnerGetByName(ctx, name); err == nil {
			continue
		} else if !errors.Is(err, store.ErrNotFound) {
			return nil, err
		}
		pt := &tradewind.Partner{Name: name, PricingMode: tradewind.PricingNet, Currency: "EUR",
			RateLimit: booking.DefaultRateLimit, Status: tradewind.PartnerPending, CreatedAt: now}
		err := tx.PartnerCreate(ctx, pt)
		if err == nil {
			return pt, nil
		}
		if !errors.Is(err, store.ErrConflict) {
			return nil, err
		}
	}
	return nil, invalid("company: too many partners have this name; add something to it")
}

// partnerName derives a partner's name from a company name: lower-case letters and
// digits, words joined by "-", at most 40 characters ("Acme Travel GmbH" → "acme-travel-gmbh").
func partnerName(company string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(company) {
		switch {
		case r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
		default:
			dash = true
		}
		if b.Len() >= 40 {
			break
		}
	}
	return strings.Trim(b.String(), "-")
}

// Approve activates a pending partner with the contract of p (partner create's flags)
// and audits it. An active or rejected partner is a clear error.
func (s *Service) Approve(ctx context.Context, name string, p booking.PartnerParams) (*tradewind.Partner, error) {
	pt, err := s.store.PartnerGetByName(ctx, name)
	if err != nil {
		return nil, mapNotFound(err, "Partner "+name)
	}
	if pt.Status != tradewind.PartnerPending {
		return nil, tradewind.Errorf(tradewind.ECodeBadRequest, "Partner %s is %s, not pending: only a pending sign-up can be approved.", name, pt.Status)
	}
	if _, err := s.booking.UpdatePartner(ctx, name, p); err != nil {
		return nil, err
	}
	ok, err := s.store.PartnerSetStatus(ctx, pt.ID, tradewind.PartnerPending, tradewind.PartnerActive, "")
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, tradewind.Errorf(tradewind.ECodeBadRequest, "Partner %s is no longer pending.", name)
	}
	s.audit(ctx, nil, pt.ID, "operator", "partner.approved", "", "")
	return s.store.PartnerGetByID(ctx, pt.ID)
}

// Reject declines a pending sign-up; its users then see that it was declined, and why.
func (s *Service) Reject(ctx context.Context, name, reason string) (*tradewind.Partner, error) {
	if len(reason) > 500 {
		return nil, tradewind.Invalid([]string{"reason: at most 500 characters"})
	}
	pt, err := s.store.PartnerGetByName(ctx, name)
	if err != nil {
		return nil, mapNotFound(err, "Partner "+name)
	}
	ok, err := s.store.PartnerSetStatus(ctx, pt.ID, tradewind.PartnerPending, tradewind.PartnerRejected, strings.TrimSpace(reason))
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, tradewind.Errorf(tradewind.ECodeBadRequest, "Partner %s is %s, not pending: only a pending sign-up can be rejected.", name, pt.Status)
	}
	s.audit(ctx, nil, pt.ID, "operator", "partner.rejected", reason, "")
	return s.store.PartnerGetByID(ctx, pt.ID)
}
