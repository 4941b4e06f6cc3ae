package sqlstore

import "context"

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

// queued reports whether a queue (unsequencedChanges, unsequencedEvents) holds a row:
// a read, so that a quiet poll takes no write lock.
func (q *queries) queued(ctx context.Context, queue string) (bool, error) {
	var n int
	err := q.db.QueryRowContext(ctx, queuedSQL(queue)).Scan(&n)
	return n > 0, q.interpret(err)
}

// queuedSQL is queued's statement.
func queuedSQL(queue string) string {
	return `SELECT COUNT(*) FROM (SELECT 1 FROM ` + queue + ` LIMIT 1) AS x`
}

// changeSequenceSQL gives the first $2 change rows not sequenced yet the positions
// after $1, in id order, and $3 as their time of sequencing.
func (q *queries) changeSequenceSQL() string {
	return `UPDATE changes SET seq = $1 + todo.n, sequenced_at = $3
		FROM (SELECT id, ROW_NUMBER() OVER (ORDER BY id) AS n FROM ` + q.unsequencedChanges() + ` LIMIT $2) AS todo
		WHERE changes.id = todo.id`
}

// eventSequenceSQL gives the first $2 events not sequenced yet the positions after $1,
// in the feed's order.
func (q *queries) eventSequenceSQL() string {
	return `UPDATE events SET seq = $1 + todo.n
		FROM (SELECT id, ROW_NUMBER() OVER (ORDER BY ` + q.eventOrder() + `) AS n FROM ` + q.unsequencedEvents() + ` LIMIT $2) AS todo
		WHERE events.id = todo.id`
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
