package portal

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base32"
	"errors"
	"strings"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/store"
)

// Two-factor sign-in: TOTP (RFC 6238: 6 digits, 30 s, SHA-1, one step of clock skew
// either way), with ten one-time recovery codes shown once, stored hashed.

var totpOpts = totp.ValidateOpts{Period: 30, Skew: 1, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1}

// RecoveryCodeCount is how many recovery codes an enrolment gives.
const RecoveryCodeCount = 10

// challengeTTL is how long the second step of a sign-in may wait.
const challengeTTL = 5 * time.Minute

// Enrolment is a TOTP secret offered to a member, not yet confirmed.
type Enrolment struct {
	Secret string // base32, to type into an authenticator app
	URL    string // otpauth:// URL, for apps that read it
}

// NewEnrolment offers the member a new TOTP secret.
func (s *Service) NewEnrolment(m *Member) (*Enrolment, error) {
	key, err := totp.Generate(totp.GenerateOpts{Issuer: "Tradewind", AccountName: m.User.Email, Period: 30,
		Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
	if err != nil {
		return nil, err
	}
	return &Enrolment{Secret: key.Secret(), URL: key.URL()}, nil
}

// validSecret reports whether secret is a base32 TOTP secret of a usable length.
func validSecret(secret string) bool {
	b, err := base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(strings.ToUpper(secret))
	return err == nil && len(b) >= 10 && len(b) <= 64
}

// codeStep checks a code from the app against secret at the service's time and returns
// the time step it was made for (the current one or one either side). A code is
// accepted once: the caller records the step with PortalUserTOTPStepUse, which refuses
// that step and every earlier one afterwards.
func (s *Service) codeStep(secret, code string) (step int64, ok bool) {
	code = strings.ReplaceAll(strings.TrimSpace(code), " ", "")
	if len(code) != int(totpOpts.Digits) {
		return 0, false
	}
	now := s.now().Unix() / int64(totpOpts.Period)
	for st := now - int64(totpOpts.Skew); st <= now+int64(totpOpts.Skew); st++ {
		want, err := totp.GenerateCodeCustom(secret, time.Unix(st*int64(totpOpts.Period), 0), totpOpts)
		if err == nil && subtle.ConstantTimeCompare([]byte(want), []byte(code)) == 1 {
			step, ok = st, true
		}
	}
	return step, ok
}

// EnableTwoFactor confirms an enrolment with a code from the app: the secret is saved,
// the code is used up, the member's other sessions end, and ten recovery codes are
// returned, shown once.
func (s *Service) EnableTwoFactor(ctx context.Context, m *Member, secret, code, addr string) ([]string, error) {
	if !validSecret(secret) {
		return nil, invalid("secret: start the enrolment again")
	}
	step, ok := s.codeStep(secret, code)
	if !ok {
		return nil, invalid("code: wrong; enter the 6 digits your app shows now")
	}
	codes, hashes := newRecoveryCodes()
	u := *m.User
	u.TOTPSecret, u.RecoveryCodes, u.UpdatedAt = secret, hashes, s.now()
	err := s.store.InTx(ctx, func(tx store.Querier) error {
		if err := tx.PortalUserSetTwoFactor(ctx, u.ID, u.TOTPSecret, u.RecoveryCodes, u.UpdatedAt); err != nil {
			return err
		}
		// The same secret again (a form sent twice) keeps its last step: its code is spent.
		if fresh, err := tx.PortalUserTOTPStepUse(ctx, u.ID, step); err != nil {
			return err
		} else if !fresh {
			return invalid("code: already used; enter the next code your app shows")
		}
		return tx.PortalSessionDeleteUser(ctx, u.ID, m.Session.ID)
	})
	if err != nil {
		return nil, err
	}
	*m.User = u
	s.audit(ctx, nil, m.Partner.ID, m.User.Email, "two_factor.enabled", "", addr)
	return codes, nil
}

// DisableTwoFactor turns two-factor sign-in off after checking the password; refused
// while the partner requires it.
func (s *Service) DisableTwoFactor(ctx context.Context, m *Member, password, addr string) error {
	if m.Partner.RequireTwoFactor {
		return invalid("two-factor sign-in: your team's owner requires it")
	}
	if !s.hasher.Verify(m.User.PasswordHash, password) {
		return invalid("password: wrong")
	}
	m.User.TOTPSecret, m.User.RecoveryCodes, m.User.UpdatedAt = "", nil, s.now()
	if err := s.store.PortalUserSetTwoFactor(ctx, m.User.ID, "", nil, m.User.UpdatedAt); err != nil {
		return err
	}
	s.audit(ctx, nil, m.Partner.ID, m.User.Email, "two_factor.disabled", "", addr)
	return nil
}

// SetRequireTwoFactor is the owner's switch: every member must sign in with a code;
// a member without it enrols at the next request.
func (s *Service) SetRequireTwoFactor(ctx context.Context, m *Member, on bool, addr string) error {
	if err := require(m, ActOwn); err != nil {
		return err
	}
	err := s.store.InTx(ctx, func(tx store.Querier) error {
		p, err := tx.PartnerGetByID(ctx, m.Partner.ID)
		if err != nil {
			return err
		}
		p.RequireTwoFactor = on
		if err := tx.PartnerUpdate(ctx, p); err != nil {
			return err
		}
		action := "two_factor.required"
		if !on {
			action = "two_factor.optional"
		}
		return s.auditIn(ctx, tx, p.ID, m.User.Email, action, "", addr)
	})
	if err == nil {
		m.Partner.RequireTwoFactor = on
	}
	return err
}

// NeedsEnrolment reports whether the member must enrol before anything else.
func (m *Member) NeedsEnrolment() bool { return m.Partner.RequireTwoFactor && m.User.TOTPSecret == "" }

func newRecoveryCodes() (codes, hashes []string) {
	enc := base32.StdEncoding.WithPadding(base32.NoPadding)
	for range RecoveryCodeCount {
		b := make([]byte, 5)
		if _, err := rand.Read(b); err != nil {
			panic(err)
		}
		c := strings.ToLower(enc.EncodeToString(b)) // 8 characters
		c = c[:4] + "-" + c[4:]
		codes = append(codes, c)
		hashes = append(hashes, HashToken(c))
	}
	return codes, hashes
}

// ErrCode is the one answer to a wrong second step.
var ErrCode = &tradewind.Error{Code: tradewind.ECodeUnauthorized, Message: "The code is wrong or has expired."}

// challenge starts the second step of u's sign-in: a one-time token, valid
// challengeTTL, that only a correct code turns into a session.
func (s *Service) challenge(ctx context.Context, u *store.PortalUser) (string, error) {
	token, hash := newToken()
	now := s.now()
	err := s.store.PortalInvitationCreate(ctx, &store.PortalInvitation{TokenHash: hash, Kind: "signin", PartnerID: u.PartnerID,
		Email: u.Email, Role: u.Role, CreatedBy: u.Email, CreatedAt: now, ExpiresAt: now.Add(challengeTTL)})
	return token, err
}

// ErrSecondFactor is SignIn's answer when the password was right and a code is needed:
// the returned token names the challenge for SignInCode.
var ErrSecondFactor = errors.New("portal: a code is needed")

// SignInCode finishes a sign-in with a TOTP code or a recovery code (used once). Wrong
// codes count against the account like wrong passwords.
func (s *Service) SignInCode(ctx context.Context, challenge, code string, c Credentials) (string, *Member, error) {
	now := s.now()
	inv, err := s.store.PortalInvitationGet(ctx, HashToken(challenge), now)
	if err != nil || inv.Kind != "signin" {
		return "", nil, ErrCode
	}
	if blocked, err := s.throttled(ctx, accountKey(inv.Email), freeAccountFailures, now); err != nil || blocked {
		return "", nil, errors.Join(ErrCode, err)
	}
	u, err := s.store.PortalUserGetByEmail(ctx, inv.Email)
	if err != nil || u.Disabled || u.TOTPSecret == "" {
		return "", nil, ErrCode
	}
	detail := "wrong code"
	step, ok := s.codeStep(u.TOTPSecret, code)
	if ok {
		// A code works once: the same code again, even within its 30 seconds, is refused.
		if ok, err = s.store.PortalUserTOTPStepUse(ctx, u.ID, step); err != nil {
			return "", nil, err
		} else if !ok {
			detail = "code already used"
		}
	}
	usedRecovery := false
	if !ok {
		// Used up in one atomic store call: two sign-ins racing with one code get one session.
		h := HashToken(strings.ToLower(strings.TrimSpace(code)))
		if ok, err = s.store.PortalUserRecoveryCodeUse(ctx, u.ID, h); err != nil {
			return "", nil, err
		}
		usedRecovery = ok
	}
	if !ok {
		if _, _, err := s.store.ThrottleHit(ctx, accountKey(inv.Email), now, throttleWindow); err != nil {
			return "", nil, err
		}
		s.audit(ctx, nil, u.PartnerID, u.Email, "signin.failed", detail, c.ClientAddr)
		return "", nil, ErrCode
	}
	if _, err := s.store.PortalInvitationUse(ctx, HashToken(challenge), now); err != nil {
		return "", nil, ErrCode // used meanwhile
	}
	if err := s.store.ThrottleReset(ctx, accountKey(u.Email)); err != nil {
		return "", nil, err
	}
	token, m, err := s.openSession(ctx, u, c.ClientAddr, c.UserAgent)
	if err != nil {
		return "", nil, err
	}
	detail = "with a code"
	if usedRecovery {
		detail = "with a recovery code"
	}
	s.audit(ctx, nil, u.PartnerID, u.Email, "signin", detail, c.ClientAddr)
	return token, m, nil
}
