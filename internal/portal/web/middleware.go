package web

import (
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/tradewind/tradewind/internal/portal"
	"github.com/tradewind/tradewind/internal/security"
)

// Config is what the portal needs.
type Config struct {
	Portal *portal.Service
	Logger *slog.Logger
	// Trust names the proxies whose X-Forwarded-For and X-Forwarded-Proto are believed.
	Trust security.ProxyTrust
	// Console is the partner API the test console calls (nil: the console answers that
	// it is not available).
	Console portal.ConsoleAPI
	// APIURL is the partner API's base URL, for the console's "copy as curl".
	APIURL string
}

// Server is the portal's HTTP handler.
type Server struct {
	cfg     Config
	portal  *portal.Service
	logger  *slog.Logger
	handler http.Handler
}

// New returns the portal's handler.
func New(cfg Config) *Server {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	s := &Server{cfg: cfg, portal: cfg.Portal, logger: cfg.Logger}
	// Every state change is a POST; CrossOriginProtection refuses one sent by another
	// site (Sec-Fetch-Site, else Origin), and GETs change nothing.
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.logger.InfoContext(r.Context(), "portal: cross-origin request refused", "path", r.URL.Path)
		http.Error(w, "Cross-site request refused.", http.StatusForbidden)
	}))
	s.handler = securityHeaders(cop.Handler(s.mux()))
	return s
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// contentSecurityPolicy allows only the portal's own scripts and styles: no inline
// script, no framing.
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'"

func securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer") // one-time links are in the path
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		next.ServeHTTP(w, r)
	})
}

// handler serves one route for the signed-in member (nil on public routes); an error
// it returns is rendered by fail.
type handler func(w http.ResponseWriter, r *http.Request, m *portal.Member) error

// sessionCookie holds the session token; only its hash is stored.
const sessionCookie = "tradewind_portal"

// guard resolves the session and enforces the route's access: signed-in, approved
// partner, and the role's permission for the action (roles.go) — for every request.
func (s *Server) guard(rt route) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		if r.Method == http.MethodPost {
			r.Body = http.MaxBytesReader(w, r.Body, 64<<10) // every form is small
		}
		var m *portal.Member
		if c, err := r.Cookie(sessionCookie); err == nil {
			m, err = s.portal.Authenticate(r.Context(), c.Value)
			switch {
			case errors.Is(err, portal.ErrNoSession):
				s.clearCookie(w, r)
			case err != nil:
				s.fail(w, r, nil, err)
				return
			}
		}
		if rt.access != public {
			if m == nil {
				http.Redirect(w, r, "/signin?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
				return
			}
			if rt.access == member && !m.Active() {
				http.Redirect(w, r, "/pending", http.StatusSeeOther)
				return
			}
			if rt.access == member && m.NeedsEnrolment() {
				// The owner requires two-factor sign-in: enrol first.
				http.Redirect(w, r, "/account/two-factor", http.StatusSeeOther)
				return
			}
			if rt.access == member && !m.Can(rt.action) {
				s.fail(w, r, m, portal.ErrForbidden)
				return
			}
		}
		if err := rt.handle(w, r, m); err != nil {
			s.fail(w, r, m, err)
		}
	})
}

// https reports whether the page was served over HTTPS, directly or through a trusted
// proxy: cookies are Secure then.
func (s *Server) https(r *http.Request) bool {
	return r.TLS != nil || (s.cfg.Trust.Trusted(r) && strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https"))
}

func (s *Server) clientAddr(r *http.Request) string {
	if a := s.cfg.Trust.ClientIP(r); a.IsValid() {
		return a.String()
	}
	return ""
}

func (s *Server) setSession(w http.ResponseWriter, r *http.Request, token string) {
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: token, Path: "/", HttpOnly: true, Secure: s.https(r),
		SameSite: http.SameSiteLaxMode, MaxAge: int(portal.SessionAbsolute / time.Second)})
}

func (s *Server) clearCookie(w http.ResponseWriter, r *http.Request) {
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: "", Path: "/", HttpOnly: true, Secure: s.https(r),
		SameSite: http.SameSiteLaxMode, MaxAge: -1})
}

// challengeCookie holds the second step of a sign-in with two-factor sign-in.
const challengeCookie = "tradewind_portal_challenge"

func (s *Server) setChallenge(w http.ResponseWriter, r *http.Request, token string, maxAge int) {
	http.SetCookie(w, &http.Cookie{Name: challengeCookie, Value: token, Path: "/signin", HttpOnly: true, Secure: s.https(r),
		SameSite: http.SameSiteLaxMode, MaxAge: maxAge})
}

// localNext returns next when it is a path on this site, else "/".
func localNext(next string) string {
	if strings.HasPrefix(next, "/") && !strings.HasPrefix(next, "//") && !strings.HasPrefix(next, "/\\") {
		return next
	}
	return "/"
}
