package booking

// HoldBookGroups takes the group committer's turn, as a running group does, so that a
// test can queue bookings and have them run as one group: queued reports how many wait,
// release gives the turn back.
func HoldBookGroups(s *Service) (queued func() int, release func()) {
	g := s.groups()
	g.token <- struct{}{}
	return func() int {
			g.mu.Lock()
			defer g.mu.Unlock()
			return len(g.queue)
		}, func() {
			<-g.token
		}
}
