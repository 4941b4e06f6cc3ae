package portal

import (
	"context"
	"errors"
	"strings"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/store"
)

// Operator is the actor the audit log names for the operator's CLI.
const Operator = "operator"

// Invitation is a one-time link's token, shown once, to put after /invitations/ or
// /reset/ in the portal's address.
type Invitation struct {
	Token string
	store.PortalInvitation
}

// Path is the link's path on the portal.
func (inv *Invitation) Path() string {
	if inv.Kind == store.InvitationReset {
		return "/reset/" + inv.Token
	}
	return "/invitations/" + inv.Token
}

// Members returns the member's team, by e-mail.
func (s *Service) Members(ctx context.Context, m *Member) ([]*store.PortalUser, error) {
	return s.store.PortalUserList(ctx, m.Partner.ID)
}

// Invite makes a one-time link (valid InvitationTTL) for email to join the member's
// team with role. Only an owner invites an owner.
func (s *Service) Invite(ctx context.Context, m *Member, email, role, addr string) (*Invitation, error) {
	if role == RoleOwner {
		if err := require(m, ActOwn); err != nil {
			return nil, err
		}
	}
	return s.invite(ctx, m.Partner.ID, email, role, m.User.Email, addr)
}

// InviteAsOperator is the operator's invitation to a partner's team (a first user).
func (s *Service) InviteAsOperator(ctx context.Context, partnerName, email, role string) (*Invitation, error) {
	p, err := s.store.PartnerGetByName(ctx, partnerName)
	if err != nil {
		return nil, mapNotFound(err, "Partner "+partnerName)
	}
	return s.invite(ctx, p.ID, email, role, Operator, "")
}

func (s *Service) invite(ctx context.Context, partnerID int64, rawEmail, role, by, addr string) (*Invitation, error) {
	var problems []string
	email, p := validEmail(rawEmail)
	if p != "" {
		problems = append(problems, p)
	}
	if !ValidRole(role) {
		problems = append(problems, "role: one of "+strings.Join(Roles, ", "))
	}
	if len(problems) > 0 {
		return nil, invalid(problems...)
	}
	if _, err := s.store.PortalUserGetByEmail(ctx, email); err == nil {
		return nil, invalid("e-mail: " + email + " has a portal account already")
	} else if !errors.Is(err, store.ErrNotFound) {
		return nil, err
	}
	inv, err := s.newLink(ctx, store.InvitationInvite, partnerID, email, role, by)
	if err != nil {
		return nil, err
	}
	s.audit(ctx, nil, partnerID, by, "member.invited", email+" as "+role, addr)
	return inv, nil
}

func (s *Service) newLink(ctx context.Context, kind string, partnerID int64, email, role, by string) (*Invitation, error) {
	token, hash := newToken()
	now := s.now()
	inv := &Invitation{Token: token, PortalInvitation: store.PortalInvitation{TokenHash: hash, Kind: kind, PartnerID: partnerID,
		Email: email, Role: role, CreatedBy: by, CreatedAt: now, ExpiresAt: now.Add(InvitationTTL)}}
	if err := s.store.PortalInvitationCreate(ctx, &inv.PortalInvitation); err != nil {
		return nil, err
	}
	return inv, nil
}

// ResetPassword is the operator's one-time link for a user who forgot the password.
func (s *Service) ResetPassword(ctx context.Context, email string) (*Invitation, error) {
	u, err := s.store.PortalUserGetByEmail(ctx, email)
	if err != nil {
		return nil, mapNotFound(err, "Portal user "+email)
	}
	inv, err := s.newLink(ctx, store.InvitationReset, u.PartnerID, u.Email, u.Role, Operator)
	if err != nil {
		return nil, err
	}
	s.audit(ctx, nil, u.PartnerID, Operator, "password.reset_link", u.Email, "")
	return inv, nil
}

// ErrLinkInvalid: the link is unknown, used or expired.
var ErrLinkInvalid = tradewind.Errorf(tradewind.ECodeNotFound, "This link is invalid, was used already or has expired; ask for a new one.")

// Link returns the unused, unexpired link of token, to show its form.
func (s *Service) Link(ctx context.Context, token string) (*store.PortalInvitation, error) {
	inv, err := s.store.PortalInvitationGet(ctx, HashToken(token), s.now())
	if errors.Is(err, store.ErrNotFound) {
		return nil, ErrLinkInvalid
	}
	return inv, err
}

// AcceptLink uses a one-time link: an invitation creates the user with name and
// password, a reset sets the password and ends every session. Either signs in.
func (s *Service) AcceptLink(ctx context.Context, token, name, password, addr, ua string) (string, *Member, error) {
	inv, err := s.Link(ctx, token)
	if err != nil {
		return "", nil, err
	}
	var problems []string
	name = strings.TrimSpace(name)
	if inv.Kind == store.InvitationInvite && (name == "" || len(name) > 100) {
		problems = append(problems, "name: 1–100 characters")
	}
	if p := passwordProblem(password, inv.Email); p != "" {
		problems = append(problems, p)
	}
	if len(problems) > 0 {
		return "", nil, invalid(problems...)
	}
	hash, err := s.hasher.Hash(password)
	if err != nil {
		return "", nil, err
	}
	var u *store.PortalUser
	err = s.store.InTx(ctx, func(tx store.Querier) error {
		inv, err := tx.PortalInvitationUse(ctx, HashToken(token), s.now())
		if errors.Is(err, store.ErrNotFound) {
			return ErrLinkInvalid
		}
		if err != nil {
			return err
		}
		now := s.now()
		if inv.Kind == store.InvitationReset {
			if u, err = tx.PortalUserGetByEmail(ctx, inv.Email); err != nil {
				return mapNotFound(err, "Portal user")
			}
			u.PasswordHash, u.UpdatedAt = hash, now
			if err := tx.PortalUserUpdate(ctx, u); err != nil {
				return err
			}
			if err := tx.PortalSessionDeleteUser(ctx, u.ID, 0); err != nil {
				return err
			}
			return s.auditIn(ctx, tx, u.PartnerID, u.Email, "password.reset", "every session ended", addr)
		}
		u = &store.PortalUser{PartnerID: inv.PartnerID, Email: inv.Email, Name: name, Role: inv.Role, PasswordHash: hash,
			TimeZone: "UTC", CreatedAt: now, UpdatedAt: now}
		if err := tx.PortalUserCreate(ctx, u); err != nil {
			if errors.Is(err, store.ErrConflict) {
				return invalid("e-mail: " + inv.Email + " has a portal account already")
			}
			return err
		}
		return s.auditIn(ctx, tx, u.PartnerID, u.Email, "member.joined", "as "+u.Role, addr)
	})
	if err != nil {
		return "", nil, err
	}
	return s.openSession(ctx, u, addr, ua)
}

// teamChange loads the partner's member id for a change by m, under the partner's lock,
// and checks the owner rules: only an owner changes an owner, and a partner keeps at
// least one owner. change mutates the target; nil deletes it.
func (s *Service) teamChange(ctx context.Context, m *Member, id int64, action, detail, addr string,
	change func(target *store.PortalUser) error) error {
	return s.store.InTx(ctx, func(tx store.Querier) error {
		if err := tx.PartnerLock(ctx, m.Partner.ID); err != nil {
			return err
		}
		t, err := tx.PortalUserGetByID(ctx, id)
		if err != nil || t.PartnerID != m.Partner.ID {
			return notFound("Member")
		}
		wasOwner := t.Role == RoleOwner
		if wasOwner {
			if err := require(m, ActOwn); err != nil {
				return err
			}
		}
		if change == nil {
			err = tx.PortalUserDelete(ctx, m.Partner.ID, t.ID)
		} else {
			if err := change(t); err != nil {
				return err
			}
			if t.Role == RoleOwner && !wasOwner {
				if err := require(m, ActOwn); err != nil {
					return err
				}
			}
			t.UpdatedAt = s.now()
			if err = tx.PortalUserUpdate(ctx, t); err == nil {
				// A privilege change: the target signs in again with a new token.
				err = tx.PortalSessionDeleteUser(ctx, t.ID, keepIfSelf(m, t))
			}
		}
		if err != nil {
			return err
		}
		owners, err := tx.PortalUserCountRole(ctx, m.Partner.ID, RoleOwner)
		if err != nil {
			return err
		}
		if owners == 0 {
			return invalid("role: the team must keep at least one owner; make someone else owner first")
		}
		return s.auditIn(ctx, tx, m.Partner.ID, m.User.Email, action, t.Email+detail, addr)
	})
}

// keepIfSelf keeps the member's own session when it changes itself.
func keepIfSelf(m *Member, t *store.PortalUser) int64 {
	if m.User.ID == t.ID {
		return m.Session.ID
	}
	return 0
}

// ChangeRole gives a member of the team another role.
func (s *Service) ChangeRole(ctx context.Context, m *Member, id int64, role, addr string) error {
	if !ValidRole(role) {
		return invalid("role: one of " + strings.Join(Roles, ", "))
	}
	return s.teamChange(ctx, m, id, "member.role_changed", " to "+role, addr, func(t *store.PortalUser) error {
		t.Role = role
		return nil
	})
}

// RemoveMember removes a member from the team (and ends its sessions).
func (s *Service) RemoveMember(ctx context.Context, m *Member, id int64, addr string) error {
	return s.teamChange(ctx, m, id, "member.removed", "", addr, nil)
}

// TransferOwnership makes another member owner and the member an admin.
func (s *Service) TransferOwnership(ctx context.Context, m *Member, id int64, addr string) error {
	if err := require(m, ActOwn); err != nil {
		return err
	}
	if id == m.User.ID {
		return invalid("member: choose someone else")
	}
	if err := s.ChangeRole(ctx, m, id, RoleOwner, addr); err != nil {
		return err
	}
	return s.ChangeRole(ctx, m, m.User.ID, RoleAdmin, addr)
}

// SetDisabled is the operator's portal user disable and enable: a disabled user cannot
// sign in and its sessions are refused (and ended).
func (s *Service) SetDisabled(ctx context.Context, email string, disabled bool) (*store.PortalUser, error) {
	u, err := s.store.PortalUserGetByEmail(ctx, email)
	if err != nil {
		return nil, mapNotFound(err, "Portal user "+email)
	}
	u.Disabled, u.UpdatedAt = disabled, s.now()
	if err := s.store.PortalUserUpdate(ctx, u); err != nil {
		return nil, err
	}
	action := "member.enabled"
	if disabled {
		action = "member.disabled"
		if err := s.store.PortalSessionDeleteUser(ctx, u.ID, 0); err != nil {
			return nil, err
		}
	}
	s.audit(ctx, nil, u.PartnerID, Operator, action, u.Email, "")
	return u, nil
}

// Users is the operator's list of portal users (partnerName "": everyone).
func (s *Service) Users(ctx context.Context, partnerName string) ([]*store.PortalUser, error) {
	var id int64
	if partnerName != "" {
		p, err := s.store.PartnerGetByName(ctx, partnerName)
		if err != nil {
			return nil, mapNotFound(err, "Partner "+partnerName)
		}
		id = p.ID
	}
	return s.store.PortalUserList(ctx, id)
}

// CreateOwner creates (or, when it exists, gives a fresh password to) an owner of the
// partner, for serve --demo; it returns the password.
func (s *Service) CreateOwner(ctx context.Context, partnerName, email, name string) (string, error) {
	p, err := s.store.PartnerGetByName(ctx, partnerName)
	if err != nil {
		return "", mapNotFound(err, "Partner "+partnerName)
	}
	password, _ := newToken()
	password = password[:20]
	hash, err := s.hasher.Hash(password)
	if err != nil {
		return "", err
	}
	now := s.now()
	u, err := s.store.PortalUserGetByEmail(ctx, email)
	switch {
	case errors.Is(err, store.ErrNotFound):
		u = &store.PortalUser{PartnerID: p.ID, Email: email, Name: name, Role: RoleOwner, PasswordHash: hash, TimeZone: "UTC",
			CreatedAt: now, UpdatedAt: now}
		err = s.store.PortalUserCreate(ctx, u)
	case err == nil:
		if u.PartnerID != p.ID {
			return "", invalid("e-mail: " + email + " belongs to another partner")
		}
		u.PasswordHash, u.Disabled, u.UpdatedAt = hash, false, now
		err = s.store.PortalUserUpdate(ctx, u)
	}
	return password, err
}

// Audit returns a page of the partner's audit log older than beforeID (0: newest).
func (s *Service) Audit(ctx context.Context, m *Member, beforeID int64) ([]*store.AuditEntry, error) {
	return s.store.AuditList(ctx, m.Partner.ID, beforeID, PageSize)
}
