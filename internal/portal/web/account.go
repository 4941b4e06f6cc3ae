package web

import (
	"net/http"

	"github.com/tradewind/tradewind/internal/portal"
)

func (s *Server) accountView(r *http.Request, m *portal.Member, notice string) (*view, error) {
	sessions, err := s.portal.Sessions(r.Context(), m)
	if err != nil {
		return nil, err
	}
	return &view{Title: "Account", Member: m, Nav: "account", Notice: notice, Data: sessions}, nil
}

func (s *Server) accountShow(w http.ResponseWriter, r *http.Request, m *portal.Member) error {
	notice := map[string]string{"saved": "Saved.", "password": "Password changed; every other session was signed out.",
		"ended": "The session was ended."}[r.URL.Query().Get("done")]
	v, err := s.accountView(r, m, notice)
	if err != nil {
		return err
	}
	return s.render(w, r, http.StatusOK, "account", v)
}

// accountDone answers a form of the Account page: back to it, or the form's problems.
func (s *Server) accountDone(w http.ResponseWriter, r *http.Request, m *portal.Member, err error, done string) error {
	if err != nil {
		v, verr := s.accountView(r, m, "")
		if verr != nil {
			return verr
		}
		return s.formError(w, r, "account", v, err)
	}
	http.Redirect(w, r, "/account?done="+done, http.StatusSeeOther)
	return nil
}

func (s *Server) accountSave(w http.ResponseWriter, r *http.Request, m *portal.Member) error {
	err := s.portal.UpdateAccount(r.Context(), m, portal.AccountUpdate{Name: r.PostFormValue("name"), TimeZone: r.PostFormValue("time_zone")})
	return s.accountDone(w, r, m, err, "saved")
}

func (s *Server) passwordSave(w http.ResponseWriter, r *http.Request, m *portal.Member) error {
	err := s.portal.ChangePassword(r.Context(), m, r.PostFormValue("current"), r.PostFormValue("new"), s.clientAddr(r))
	return s.accountDone(w, r, m, err, "password")
}

func (s *Server) sessionEnd(w http.ResponseWriter, r *http.Request, m *portal.Member) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	if err := s.portal.EndSession(r.Context(), m, id); err != nil {
		return err
	}
	if id == m.Session.ID {
		s.clearCookie(w, r)
		http.Redirect(w, r, "/signin", http.StatusSeeOther)
		return nil
	}
	http.Redirect(w, r, "/account?done=ended", http.StatusSeeOther)
	return nil
}
