package sqlstore

// The change feed's and the event feed's sequencers place what committed since their
// last run (changes.go, feed.go). What is not sequenced yet has a partial index of its
// own (changes_unsequenced, events_unsequenced): a queue, which holds every row right
// after an import and almost none a moment later. Their reads name that index and its
// order, so that they cost what the queue holds, not what the table holds, whatever
// statistics ANALYZE took (Dialect.IndexedBy).

// unsequencedChanges is the change rows not sequenced yet, oldest first: a FROM clause
// and what follows it, before any LIMIT.
func (q *queries) unsequencedChanges() string {
	return q.through("changes", "changes_unsequenced") + ` WHERE seq IS NULL ORDER BY id`
}

// unsequencedEvents is the events not sequenced yet in the feed's order: a FROM clause
// and what follows it, before any LIMIT.
func (q *queries) unsequencedEvents() string {
	return q.through("events", "events_unsequenced") + ` WHERE seq IS NULL ORDER BY ` + q.eventOrder()
}

// eventOrder orders events as the feed's sequencer places them, as events_unsequenced
// holds them.
func (q *queries) eventOrder() string { return "created_at, " + q.d.EventInsertOrder }

// through is table read through index where the dialect names it (Dialect.IndexedBy).
func (q *queries) through(table, index string) string {
	if q.d.IndexedBy == "" {
		return table
	}
	return table + q.d.IndexedBy + index
}
