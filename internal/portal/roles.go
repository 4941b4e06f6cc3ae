package portal

// Roles of a portal user, least to most privileged (shared/spec/portal.md).
const (
	RoleViewer    = "viewer"
	RoleDeveloper = "developer"
	RoleAdmin     = "admin"
	RoleOwner     = "owner"
)

// Roles lists every role, least privileged first.
var Roles = []string{RoleViewer, RoleDeveloper, RoleAdmin, RoleOwner}

// rank orders the roles; an unknown role ranks below every known one.
func rank(role string) int {
	for i, r := range Roles {
		if r == role {
			return i + 1
		}
	}
	return 0
}

// ValidRole reports whether role is one of Roles.
func ValidRole(role string) bool { return rank(role) > 0 }

// Action is something a member may be allowed to do.
type Action string

// The actions of portal.md's matrix.
const (
	// ActView: see bookings, credit, keys, webhooks and deliveries.
	ActView Action = "view"
	// ActDevelop: see request and response bodies, use the test console, manage
	// webhooks, redeliver, send test events.
	ActDevelop Action = "develop"
	// ActCancel: cancel and export bookings.
	ActCancel Action = "cancel"
	// ActManageTeam: invite, remove and change the role of members (never an owner's);
	// see the audit log.
	ActManageTeam Action = "manage_team"
	// ActOwn: change an owner's role, transfer ownership, require two-factor sign-in.
	ActOwn Action = "own"
)

// minRole is the matrix of portal.md: the least role allowed each action. Every rule
// of the portal about roles is read from this table.
var minRole = map[Action]string{
	ActView:       RoleViewer,
	ActDevelop:    RoleDeveloper,
	ActCancel:     RoleAdmin,
	ActManageTeam: RoleAdmin,
	ActOwn:        RoleOwner,
}

// Allowed reports whether role may do a. An unknown action is refused.
func Allowed(role string, a Action) bool {
	min, ok := minRole[a]
	return ok && rank(role) >= rank(min)
}
