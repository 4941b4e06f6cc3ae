package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/tradewind/tradewind/internal/portal"
	"github.com/tradewind/tradewind/internal/store"
)

// The operator's side of the partner portal: reviewing sign-ups (partner approve and
// reject) and portal users (portal user …); see shared/spec/portal.md.

// portalService opens the database and the portal's rules over it.
func (e *env) portalService() (*portal.Service, func() error, error) {
	st, svc, err := e.open()
	if err != nil {
		return nil, nil, err
	}
	return portal.New(svc, portal.Config{}), st.Close, nil
}

type partnerApproveCmd struct {
	Name string `arg:"" help:"Partner name (see: tradewind partner list --status pending)."`
	partnerFlags
}

func (c *partnerApproveCmd) Run(e *env) error {
	ps, closeDB, err := e.portalService()
	if err != nil {
		return err
	}
	defer closeDB()
	p, err := ps.Approve(e.ctx, c.Name, c.params())
	if err != nil {
		return err
	}
	return printPartner(e, p, true)
}

type partnerRejectCmd struct {
	Name   string `arg:"" help:"Partner name (see: tradewind partner list --status pending)."`
	Reason string `name:"reason" help:"Why; the sign-up's users see it."`
}

func (c *partnerRejectCmd) Run(e *env) error {
	ps, closeDB, err := e.portalService()
	if err != nil {
		return err
	}
	defer closeDB()
	p, err := ps.Reject(e.ctx, c.Name, c.Reason)
	if err != nil {
		return err
	}
	return e.print(map[string]string{"name": p.Name, "status": p.Status, "reason": p.StatusReason}, func(w io.Writer) {
		fmt.Fprintf(w, "Partner %s rejected; its users see that the registration was declined.\n", p.Name)
	})
}

type portalCmd struct {
	User struct {
		List          portalUserListCmd   `cmd:"" help:"List portal users."`
		Invite        portalUserInviteCmd `cmd:"" help:"Print a one-time link (72 hours) that adds a user to a partner's team."`
		ResetPassword portalUserResetCmd  `cmd:"" name:"reset-password" help:"Print a one-time link (72 hours) to set a new password."`
		Disable       portalUserSetCmd    `cmd:"" help:"Refuse the user's sign-ins and end its sessions."`
		Enable        portalUserSetCmd    `cmd:"" help:"Let a disabled user sign in again."`
	} `cmd:"" help:"Manage the partner portal's users."`
}

// portalUserView is a portal user as the operator sees it.
type portalUserView struct {
	ID        int64     `json:"id"`
	Partner   string    `json:"partner"`
	Email     string    `json:"email"`
	Name      string    `json:"name"`
	Role      string    `json:"role"`
	Disabled  bool      `json:"disabled"`
	TwoFactor bool      `json:"two_factor"`
	CreatedAt time.Time `json:"created_at"`
}

type portalUserListCmd struct {
	Partner string `name:"partner" help:"Only this partner's users."`
}

func (c *portalUserListCmd) Run(e *env) error {
	st, svc, err := e.open()
	if err != nil {
		return err
	}
	defer st.Close()
	names, _, err := partnerNames(e, st, c.Partner)
	if err != nil {
		return err
	}
	users, err := portal.New(svc, portal.Config{}).Users(e.ctx, c.Partner)
	if err != nil {
		return err
	}
	views := []portalUserView{}
	for _, u := range users {
		views = append(views, portalUserView{ID: u.ID, Partner: names[u.PartnerID], Email: u.Email, Name: u.Name, Role: u.Role,
			Disabled: u.Disabled, TwoFactor: u.TOTPSecret != "", CreatedAt: u.CreatedAt})
	}
	return e.print(views, func(w io.Writer) {
		fmt.Fprintln(w, "EMAIL\tPARTNER\tROLE\tNAME\tDISABLED")
		for _, v := range views {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%v\n", v.Email, v.Partner, v.Role, v.Name, v.Disabled)
		}
	})
}

// portalURLFlag is where the portal is reached, to print whole links.
type portalURLFlag struct {
	PortalURL string `name:"portal-url" env:"TRADEWIND_PORTAL_URL" default:"http://127.0.0.1:8081" help:"The portal's address, put before the link's path."`
}

func printLink(e *env, base string, inv *portal.Invitation) error {
	link := strings.TrimRight(base, "/") + inv.Path()
	return e.print(map[string]any{"link": link, "email": inv.Email, "role": inv.Role, "kind": inv.Kind, "expires_at": inv.ExpiresAt},
		func(w io.Writer) {
			what := "join the team as " + inv.Role
			if inv.Kind == store.InvitationReset {
				what = "set a new password"
			}
			fmt.Fprintf(w, "One-time link for %s to %s (valid until %s):\n%s\n", inv.Email, what, inv.ExpiresAt.Format(time.RFC3339), link)
		})
}

type portalUserInviteCmd struct {
	Partner string `name:"partner" required:"" help:"Partner name."`
	Email   string `name:"email" required:"" help:"The user's e-mail."`
	Role    string `name:"role" required:"" enum:"owner,admin,developer,viewer" help:"owner, admin, developer or viewer."`
	portalURLFlag
}

func (c *portalUserInviteCmd) Run(e *env) error {
	ps, closeDB, err := e.portalService()
	if err != nil {
		return err
	}
	defer closeDB()
	inv, err := ps.InviteAsOperator(e.ctx, c.Partner, c.Email, c.Role)
	if err != nil {
		return err
	}
	return printLink(e, c.PortalURL, inv)
}

type portalUserResetCmd struct {
	Email string `arg:"" help:"The user's e-mail."`
	portalURLFlag
}

func (c *portalUserResetCmd) Run(e *env) error {
	ps, closeDB, err := e.portalService()
	if err != nil {
		return err
	}
	defer closeDB()
	inv, err := ps.ResetPassword(e.ctx, c.Email)
	if err != nil {
		return err
	}
	return printLink(e, c.PortalURL, inv)
}

// portalUserSetCmd is disable and enable; which one is the command's name.
type portalUserSetCmd struct {
	Email string `arg:"" help:"The user's e-mail."`
}

func (c *portalUserSetCmd) Run(e *env) error {
	disable := e.command == "portal user disable"
	ps, closeDB, err := e.portalService()
	if err != nil {
		return err
	}
	defer closeDB()
	u, err := ps.SetDisabled(e.ctx, c.Email, disable)
	if err != nil {
		return err
	}
	return e.print(map[string]any{"email": u.Email, "disabled": u.Disabled}, func(w io.Writer) {
		if disable {
			fmt.Fprintf(w, "Portal user %s disabled; its sessions were ended.\n", u.Email)
		} else {
			fmt.Fprintf(w, "Portal user %s enabled.\n", u.Email)
		}
	})
}
