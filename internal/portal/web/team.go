package web

import (
	"net/http"

	"github.com/tradewind/tradewind/internal/portal"
)

type teamPage struct {
	Members any
	Link    *portal.Invitation
	Base    string // the portal's address, before a link's path
}

func (s *Server) teamView(r *http.Request, m *portal.Member, link *portal.Invitation) (*view, error) {
	members, err := s.portal.Members(r.Context(), m)
	if err != nil {
		return nil, err
	}
	scheme := "http://"
	if s.https(r) {
		scheme = "https://"
	}
	return &view{Title: "Team", Member: m, Nav: "team", Data: teamPage{Members: members, Link: link, Base: scheme + r.Host}}, nil
}

func (s *Server) teamShow(w http.ResponseWriter, r *http.Request, m *portal.Member) error {
	v, err := s.teamView(r, m, nil)
	if err != nil {
		return err
	}
	if r.URL.Query().Get("done") == "1" {
		v.Notice = "Saved."
	}
	return s.render(w, r, http.StatusOK, "team", v)
}

func (s *Server) teamInvite(w http.ResponseWriter, r *http.Request, m *portal.Member) error {
	link, err := s.portal.Invite(r.Context(), m, r.PostFormValue("email"), r.PostFormValue("role"), s.clientAddr(r))
	v, verr := s.teamView(r, m, link)
	if verr != nil {
		return verr
	}
	if err != nil {
		return s.formError(w, r, "team", v, err)
	}
	return s.render(w, r, http.StatusCreated, "team", v) // the link is shown in this answer only
}

// teamDone answers a change of the team: back to the page, or its problems.
func (s *Server) teamDone(w http.ResponseWriter, r *http.Request, m *portal.Member, err error) error {
	if err != nil {
		v, verr := s.teamView(r, m, nil)
		if verr != nil {
			return verr
		}
		return s.formError(w, r, "team", v, err)
	}
	http.Redirect(w, r, "/team?done=1", http.StatusSeeOther)
	return nil
}

func (s *Server) teamRole(w http.ResponseWriter, r *http.Request, m *portal.Member) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	return s.teamDone(w, r, m, s.portal.ChangeRole(r.Context(), m, id, r.PostFormValue("role"), s.clientAddr(r)))
}

func (s *Server) teamRemove(w http.ResponseWriter, r *http.Request, m *portal.Member) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	return s.teamDone(w, r, m, s.portal.RemoveMember(r.Context(), m, id, s.clientAddr(r)))
}

func (s *Server) teamTransfer(w http.ResponseWriter, r *http.Request, m *portal.Member) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	return s.teamDone(w, r, m, s.portal.TransferOwnership(r.Context(), m, id, s.clientAddr(r)))
}
