package portal

import (
	"context"
	"errors"
	"net/mail"
	"strings"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/store"
)

// ErrSignIn is the one answer to every failed sign-in, whatever failed: unknown e-mail,
// wrong password, disabled user, or too many attempts.
var ErrSignIn = &tradewind.Error{Code: tradewind.ECodeUnauthorized, Message: "E-mail or password is wrong."}

// Sign-in throttling: after the free failures of a window, each further failure adds
// a doubling delay before the next attempt is even checked (back-off, never a
// permanent lock-out). Counted in the database, so every server shares them.
const (
	throttleWindow      = 15 * time.Minute
	freeAccountFailures = 5
	freeAddressFailures = 20
	maxBackoff          = 15 * time.Minute
)

// backoff is the wait after hits failures when free of them are allowed.
func backoff(hits, free int) time.Duration {
	if hits < free {
		return 0
	}
	d := time.Second << min(hits-free, 10)
	return min(d, maxBackoff)
}

// Credentials are what a sign-in form sends.
type Credentials struct {
	Email, Password string
	ClientAddr      string
	UserAgent       string
}

func accountKey(email string) string { return "signin:account:" + strings.ToLower(email) }
func addressKey(addr string) string  { return "signin:address:" + addr }

// throttled reports whether key is waiting out its back-off at now.
func (s *Service) throttled(ctx context.Context, key string, free int, now time.Time) (bool, error) {
	hits, last, err := s.store.ThrottleGet(ctx, key, now, throttleWindow)
	if err != nil {
		return false, err
	}
	return hits >= free && now.Before(last.Add(backoff(hits, free))), nil
}

// SignIn checks the credentials and opens a session; it returns the session's token
// (for the cookie, never stored) and the member. Every failure is ErrSignIn. A user
// with two-factor sign-in gets ErrSecondFactor and a challenge token for SignInCode.
func (s *Service) SignIn(ctx context.Context, c Credentials) (string, *Member, error) {
	now := s.now()
	email := strings.ToLower(strings.TrimSpace(c.Email))
	for _, k := range []struct {
		key  string
		free int
	}{{accountKey(email), freeAccountFailures}, {addressKey(c.ClientAddr), freeAddressFailures}} {
		blocked, err := s.throttled(ctx, k.key, k.free, now)
		if err != nil {
			return "", nil, err
		}
		if blocked {
			s.logger.InfoContext(ctx, "portal sign-in throttled", "client_addr", c.ClientAddr)
			return "", nil, ErrSignIn
		}
	}
	u, err := s.store.PortalUserGetByEmail(ctx, email)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return "", nil, err
	}
	ok := false
	if u == nil {
		s.hasher.Dummy(c.Password)
	} else {
		ok = s.hasher.Verify(u.PasswordHash, c.Password) && !u.Disabled
	}
	if !ok {
		for _, key := range []string{accountKey(email), addressKey(c.ClientAddr)} {
			if _, _, err := s.store.ThrottleHit(ctx, key, now, throttleWindow); err != nil {
				return "", nil, err
			}
		}
		if u != nil {
			s.audit(ctx, nil, u.PartnerID, u.Email, "signin.failed", "", c.ClientAddr)
		}
		return "", nil, ErrSignIn
	}
	if u.TOTPSecret != "" {
		// The password was right; the session opens only with a code (SignInCode).
		challenge, err := s.challenge(ctx, u)
		if err != nil {
			return "", nil, err
		}
		return challenge, nil, ErrSecondFactor
	}
	if err := s.store.ThrottleReset(ctx, accountKey(email)); err != nil {
		return "", nil, err
	}
	token, m, err := s.openSession(ctx, u, c.ClientAddr, c.UserAgent)
	if err != nil {
		return "", nil, err
	}
	s.audit(ctx, nil, u.PartnerID, u.Email, "signin", "", c.ClientAddr)
	return token, m, nil
}

// openSession starts a new session of u (a new token at every sign-in and privilege
// change) and clears the expired ones.
func (s *Service) openSession(ctx context.Context, u *store.PortalUser, addr, ua string) (string, *Member, error) {
	now := s.now()
	if _, err := s.store.PortalSessionDeleteExpired(ctx, now.Add(-SessionIdle), now); err != nil {
		return "", nil, err
	}
	p, err := s.store.PartnerGetByID(ctx, u.PartnerID)
	if err != nil {
		return "", nil, err
	}
	token, hash := newToken()
	if len(ua) > 300 {
		ua = ua[:300]
	}
	sess := &store.PortalSession{TokenHash: hash, UserID: u.ID, ClientAddr: addr, UserAgent: ua, CreatedAt: now,
		LastSeenAt: now, ExpiresAt: now.Add(SessionAbsolute)}
	if err := s.store.PortalSessionCreate(ctx, sess); err != nil {
		return "", nil, err
	}
	return token, &Member{User: u, Partner: p, Session: sess}, nil
}

// ErrNoSession: the token names no live session (unknown, ended, idle too long, past
// its absolute end, or its user is disabled).
var ErrNoSession = errors.New("portal: no live session")

// touchEvery bounds the writes of activity: a session's last use is recorded at most
// once a minute.
const touchEvery = time.Minute

// Authenticate resolves a session token to its member.
func (s *Service) Authenticate(ctx context.Context, token string) (*Member, error) {
	if token == "" || len(token) > 100 {
		return nil, ErrNoSession
	}
	sess, err := s.store.PortalSessionGet(ctx, HashToken(token))
	if errors.Is(err, store.ErrNotFound) {
		return nil, ErrNoSession
	}
	if err != nil {
		return nil, err
	}
	now := s.now()
	if !now.Before(sess.ExpiresAt) || !now.Before(sess.LastSeenAt.Add(SessionIdle)) {
		return nil, ErrNoSession
	}
	u, err := s.store.PortalUserGetByID(ctx, sess.UserID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, ErrNoSession
	}
	if err != nil {
		return nil, err
	}
	if u.Disabled {
		return nil, ErrNoSession
	}
	p, err := s.store.PartnerGetByID(ctx, u.PartnerID)
	if err != nil {
		return nil, err
	}
	if now.Sub(sess.LastSeenAt) >= touchEvery {
		if err := s.store.PortalSessionTouch(ctx, sess.ID, now); err != nil {
			return nil, err
		}
		sess.LastSeenAt = now
	}
	return &Member{User: u, Partner: p, Session: sess}, nil
}

// SignOut ends the member's current session.
func (s *Service) SignOut(ctx context.Context, m *Member) error {
	err := s.store.PortalSessionDelete(ctx, m.User.ID, m.Session.ID)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	return err
}

// Sessions returns the member's sessions, newest first.
func (s *Service) Sessions(ctx context.Context, m *Member) ([]*store.PortalSession, error) {
	return s.store.PortalSessionList(ctx, m.User.ID)
}

// EndSession ends one of the member's own sessions. 404 for anyone else's.
func (s *Service) EndSession(ctx context.Context, m *Member, id int64) error {
	return mapNotFound(s.store.PortalSessionDelete(ctx, m.User.ID, id), "Session")
}

// AccountUpdate is the Account page's profile form.
type AccountUpdate struct {
	Name, TimeZone string
}

// UpdateAccount changes the member's name and time zone.
func (s *Service) UpdateAccount(ctx context.Context, m *Member, a AccountUpdate) error {
	var problems []string
	name := strings.TrimSpace(a.Name)
	if name == "" || len(name) > 100 {
		problems = append(problems, "name: 1–100 characters")
	}
	if _, err := time.LoadLocation(a.TimeZone); err != nil || a.TimeZone == "" || a.TimeZone == "Local" {
		problems = append(problems, "time zone: an IANA name such as Europe/Paris or UTC")
	}
	if len(problems) > 0 {
		return invalid(problems...)
	}
	m.User.Name, m.User.TimeZone, m.User.UpdatedAt = name, a.TimeZone, s.now()
	return s.store.PortalUserUpdate(ctx, m.User)
}

// ChangePassword sets a new password after checking the current one, ends the
// member's other sessions and audits it.
func (s *Service) ChangePassword(ctx context.Context, m *Member, current, next, addr string) error {
	if !s.hasher.Verify(m.User.PasswordHash, current) {
		return invalid("current password: wrong")
	}
	if p := passwordProblem(next, m.User.Email); p != "" {
		return invalid(p)
	}
	hash, err := s.hasher.Hash(next)
	if err != nil {
		return err
	}
	m.User.PasswordHash, m.User.UpdatedAt = hash, s.now()
	if err := s.store.PortalUserUpdate(ctx, m.User); err != nil {
		return err
	}
	if err := s.store.PortalSessionDeleteUser(ctx, m.User.ID, m.Session.ID); err != nil {
		return err
	}
	s.audit(ctx, nil, m.Partner.ID, m.User.Email, "password.changed", "other sessions ended", addr)
	return nil
}

// validEmail returns the lower-case address or a problem.
func validEmail(raw string) (string, string) {
	e := strings.ToLower(strings.TrimSpace(raw))
	a, err := mail.ParseAddress(e)
	if err != nil || a.Address != e || len(e) > 254 || !strings.Contains(e[strings.LastIndex(e, "@")+1:], ".") {
		return "", "e-mail: a valid address such as name@example.com"
	}
	return e, ""
}
