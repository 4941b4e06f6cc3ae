package web

import (
	"bytes"
	"encoding/base64"
	"html/template"
	"image/png"
	"net/http"

	"github.com/pquerna/otp"

	"github.com/tradewind/tradewind/internal/portal"
)

type twoFactorPage struct {
	Enrolment     *portal.Enrolment
	QR            template.URL // data: URL of the otpauth QR code
	RecoveryCodes []string     // shown once, after enrolment
}

// twoFactorView offers a new secret to a member without two-factor sign-in.
func (s *Server) twoFactorView(m *portal.Member, notice string) (*view, error) {
	v := &view{Title: "Two-factor sign-in", Member: m, Nav: "account", Notice: notice}
	if m.User.TOTPSecret != "" {
		v.Data = twoFactorPage{}
		return v, nil
	}
	e, err := s.portal.NewEnrolment(m)
	if err != nil {
		return nil, err
	}
	page := twoFactorPage{Enrolment: e}
	if key, err := otp.NewKeyFromURL(e.URL); err == nil {
		if img, err := key.Image(200, 200); err == nil {
			var buf bytes.Buffer
			if png.Encode(&buf, img) == nil {
				page.QR = template.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(buf.Bytes()))
			}
		}
	}
	v.Data = page
	return v, nil
}

func (s *Server) twoFactorShow(w http.ResponseWriter, r *http.Request, m *portal.Member) error {
	notice := ""
	if m.NeedsEnrolment() {
		notice = "Your team's owner requires two-factor sign-in: set it up to continue."
	}
	v, err := s.twoFactorView(m, notice)
	if err != nil {
		return err
	}
	return s.render(w, r, http.StatusOK, "twofactor", v)
}

func (s *Server) twoFactorEnable(w http.ResponseWriter, r *http.Request, m *portal.Member) error {
	codes, err := s.portal.EnableTwoFactor(r.Context(), m, r.PostFormValue("secret"), r.PostFormValue("code"), s.clientAddr(r))
	if err != nil {
		// The same secret again, so that the app's entry stays valid.
		e := &portal.Enrolment{Secret: r.PostFormValue("secret")}
		return s.formError(w, r, "twofactor", &view{Title: "Two-factor sign-in", Member: m, Nav: "account",
			Data: twoFactorPage{Enrolment: e}}, err)
	}
	v := &view{Title: "Two-factor sign-in", Member: m, Nav: "account", Notice: "Two-factor sign-in is on.",
		Data: twoFactorPage{RecoveryCodes: codes}}
	return s.render(w, r, http.StatusOK, "twofactor", v)
}

func (s *Server) twoFactorDisable(w http.ResponseWriter, r *http.Request, m *portal.Member) error {
	if err := s.portal.DisableTwoFactor(r.Context(), m, r.PostFormValue("password"), s.clientAddr(r)); err != nil {
		v, verr := s.twoFactorView(m, "")
		if verr != nil {
			return verr
		}
		return s.formError(w, r, "twofactor", v, err)
	}
	http.Redirect(w, r, "/account/two-factor", http.StatusSeeOther)
	return nil
}

func (s *Server) teamTwoFactor(w http.ResponseWriter, r *http.Request, m *portal.Member) error {
	return s.teamDone(w, r, m, s.portal.SetRequireTwoFactor(r.Context(), m, r.PostFormValue("require") == "on", s.clientAddr(r)))
}
