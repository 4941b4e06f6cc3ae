package web

import (
	"errors"
	"net/http"
	"net/url"

	"github.com/tradewind/tradewind/internal/portal"
)

func (s *Server) signinShow(w http.ResponseWriter, r *http.Request, m *portal.Member) error {
	if m != nil {
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return nil
	}
	return s.render(w, r, http.StatusOK, "signin", &view{Title: "Sign in", Form: url.Values{"next": {r.URL.Query().Get("next")}}})
}

func (s *Server) signinCheck(w http.ResponseWriter, r *http.Request, _ *portal.Member) error {
	token, _, err := s.portal.SignIn(r.Context(), portal.Credentials{Email: r.PostFormValue("email"),
		Password: r.PostFormValue("password"), ClientAddr: s.clientAddr(r), UserAgent: r.UserAgent()})
	if errors.Is(err, portal.ErrSecondFactor) {
		s.setChallenge(w, r, token, 300)
		http.Redirect(w, r, "/signin/code?next="+url.QueryEscape(localNext(r.PostFormValue("next"))), http.StatusSeeOther)
		return nil
	}
	if err != nil {
		return s.formError(w, r, "signin", &view{Title: "Sign in"}, err)
	}
	s.setSession(w, r, token)
	http.Redirect(w, r, localNext(r.PostFormValue("next")), http.StatusSeeOther)
	return nil
}

func (s *Server) codeShow(w http.ResponseWriter, r *http.Request, _ *portal.Member) error {
	return s.render(w, r, http.StatusOK, "code", &view{Title: "Two-factor sign-in", Form: url.Values{"next": {r.URL.Query().Get("next")}}})
}

func (s *Server) codeCheck(w http.ResponseWriter, r *http.Request, _ *portal.Member) error {
	var challenge string
	if c, err := r.Cookie(challengeCookie); err == nil {
		challenge = c.Value
	}
	token, _, err := s.portal.SignInCode(r.Context(), challenge, r.PostFormValue("code"),
		portal.Credentials{ClientAddr: s.clientAddr(r), UserAgent: r.UserAgent()})
	if err != nil {
		return s.formError(w, r, "code", &view{Title: "Two-factor sign-in"}, err)
	}
	s.setChallenge(w, r, "", -1)
	s.setSession(w, r, token)
	http.Redirect(w, r, localNext(r.PostFormValue("next")), http.StatusSeeOther)
	return nil
}

func (s *Server) signupShow(w http.ResponseWriter, r *http.Request, m *portal.Member) error {
	return s.render(w, r, http.StatusOK, "signup", &view{Title: "Register", Member: m})
}

func (s *Server) signupSave(w http.ResponseWriter, r *http.Request, _ *portal.Member) error {
	token, _, err := s.portal.SignUp(r.Context(), portal.Signup{Company: r.PostFormValue("company"), Name: r.PostFormValue("name"),
		Email: r.PostFormValue("email"), Password: r.PostFormValue("password"), ClientAddr: s.clientAddr(r), UserAgent: r.UserAgent()})
	if err != nil {
		return s.formError(w, r, "signup", &view{Title: "Register"}, err)
	}
	s.setSession(w, r, token)
	http.Redirect(w, r, "/pending", http.StatusSeeOther)
	return nil
}

func (s *Server) signout(w http.ResponseWriter, r *http.Request, m *portal.Member) error {
	if err := s.portal.SignOut(r.Context(), m); err != nil {
		return err
	}
	s.clearCookie(w, r)
	http.Redirect(w, r, "/signin", http.StatusSeeOther)
	return nil
}

func (s *Server) pendingShow(w http.ResponseWriter, r *http.Request, m *portal.Member) error {
	if m.Active() {
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return nil
	}
	title := "Awaiting approval"
	if m.Partner.Status == "rejected" {
		title = "Registration declined"
	}
	return s.render(w, r, http.StatusOK, "pending", &view{Title: title, Member: m})
}

// linkShow shows the form of a one-time link: an invitation or a password reset.
func (s *Server) linkShow(w http.ResponseWriter, r *http.Request, m *portal.Member) error {
	inv, err := s.portal.Link(r.Context(), r.PathValue("token"))
	if err != nil {
		return err
	}
	return s.render(w, r, http.StatusOK, "link", &view{Title: "Your link", Member: m, Data: inv})
}

func (s *Server) linkAccept(w http.ResponseWriter, r *http.Request, _ *portal.Member) error {
	token := r.PathValue("token")
	inv, err := s.portal.Link(r.Context(), token)
	if err != nil {
		return err
	}
	session, _, err := s.portal.AcceptLink(r.Context(), token, r.PostFormValue("name"), r.PostFormValue("password"),
		s.clientAddr(r), r.UserAgent())
	if err != nil {
		return s.formError(w, r, "link", &view{Title: "Your link", Data: inv}, err)
	}
	s.setSession(w, r, session)
	http.Redirect(w, r, "/", http.StatusSeeOther)
	return nil
}
