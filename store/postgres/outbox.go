package postgres

import (
	"cmp"
	"context"
	"math"
	"slices"
	"time"

	"github.com/cockroachdb/errors"
	"github.com/go-json-experiment/json"
	"github.com/jackc/pgx/v5"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/store"
)

// outboxLock is the advisory lock held while events are numbered, so that
// numbering passes take turns. (Any constant works; this one spells "outbox"
// in ASCII.)
const outboxLock int64 = 0x6f7574626f78

// AppendEvent buffers e; it is inserted with the transaction's last batch
// and numbered (e.Seq set) once the transaction committed, before Update
// returns.
func (t *tx) AppendEvent(e *store.Event) error {
	if !t.write {
		return errors.AssertionFailedf("appending an event in a read-only transaction")
	}
	t.events = append(t.events, e)
	return nil
}

// queueEvents adds the insert of the buffered events to b, the last batch
// before COMMIT. The events stay unnumbered (invisible to NextEvent) until
// numberEvents runs after the commit; with Options.UnorderedEvents they are
// numbered right away instead.
func (t *tx) queueEvents(b *pgx.Batch) error {
	if len(t.events) == 0 {
		return nil
	}
	var tenants, kinds []string
	var created []int64
	var docs [][]byte
	for _, e := range t.events {
		doc, err := encode(e)
		if err != nil {
			return err
		}
		tenants, kinds = append(tenants, e.TenantID), append(kinds, string(e.Kind))
		created, docs = append(created, e.CreatedAt.UnixNano()), append(docs, doc)
	}
	seq := "NULL::bigint"
	if t.s.opts.UnorderedEvents {
		seq = "nextval('events_seq')"
	}
	// The doc is stored with seq 0: the number lives in its column.
	b.Queue(`INSERT INTO events (seq, tenant_id, kind, created_ns, doc)
		SELECT `+seq+`, u.tenant_id, u.kind, u.created_ns, u.doc
		FROM unnest($1::text[], $2::text[], $3::bigint[], $4::json[]) WITH ORDINALITY AS u(tenant_id, kind, created_ns, doc, n)
		ORDER BY u.n
		RETURNING pending_id, seq`, tenants, kinds, created, docs).Query(t.insertedEvents)
	return nil
}

// insertedEvents keeps the pending ids (and, unordered, the numbers) the
// insert returned, in the order the events were appended.
func (t *tx) insertedEvents(rows pgx.Rows) error {
	type inserted struct {
		PendingID int64
		Seq       *int64
	}
	list, err := pgx.CollectRows(rows, pgx.RowToStructByPos[inserted])
	if err != nil {
		return errors.Wrap(err, "appending events")
	}
	if len(list) != len(t.events) {
		return errors.AssertionFailedf("%d events inserted, %d returned", len(t.events), len(list))
	}
	// Identity values are taken in insertion order, which is append order.
	slices.SortFunc(list, func(a, b inserted) int { return cmp.Compare(a.PendingID, b.PendingID) })
	t.pendingIDs = make([]int64, len(list))
	for i, r := range list {
		t.pendingIDs[i] = r.PendingID
		if r.Seq != nil {
			t.events[i].Seq = *r.Seq
		}
	}
	return nil
}

// numberingSQL numbers every committed event that has no number yet, in the
// order they were inserted. It runs holding outboxLock, so passes take turns
// and a pass numbers above everything numbered before it; it sees only
// committed events, so an event that commits later is numbered later, above
// every number a reader may already have seen. (The volatile nextval keeps
// the sorted subquery from being flattened, so numbers follow its order.)
const numberingSQL = `UPDATE events e SET seq = n.seq
	FROM (SELECT p.pending_id, nextval('events_seq') AS seq
	      FROM (SELECT pending_id FROM events WHERE seq IS NULL ORDER BY pending_id) p) n
	WHERE e.pending_id = n.pending_id`

func (t *tx) Events(tenantID string, kinds []connect.EventKind, after, before int64, limit int) ([]store.Event, error) {
	if len(kinds) == 0 {
		kinds = connect.EventKinds
	}
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = string(k)
	}
	if before <= 0 {
		before = math.MaxInt64
	}
	// One index range per kind (a LATERAL subquery each), merged by number.
	return t.readEvents(`SELECT e.seq, e.doc FROM unnest($2::text[]) AS k(kind)
		CROSS JOIN LATERAL (SELECT seq, doc FROM events
			WHERE tenant_id = $1 AND kind = k.kind AND seq > $3 AND seq < $4 AND seq IS NOT NULL ORDER BY seq LIMIT $5) e
		ORDER BY e.seq LIMIT $5`, tenantID, names, after, before, limit)
}

// readEvents reads the events sql returns as rows of (seq, doc); the doc holds
// seq 0, the number lives in its column.
func (t *tx) readEvents(sql string, args ...any) ([]store.Event, error) {
	var events []store.Event
	err := t.read(func(rows pgx.Rows) (err error) {
		events, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (store.Event, error) {
			var seq int64
			var doc []byte
			var e store.Event
			if err := row.Scan(&seq, &doc); err != nil {
				return e, err
			}
			err := json.Unmarshal(doc, &e)
			e.Seq = seq
			return e, errors.Wrap(err, "decoding an event")
		})
		return err
	}, sql, args...)
	return events, errors.Wrap(err, "reading events")
}

func (t *tx) EventByID(tenantID, id string) (*store.Event, error) {
	events, err := t.readEvents(`SELECT seq, doc FROM events WHERE tenant_id = $1 AND doc->>'id' = $2 AND seq IS NOT NULL`, tenantID, id)
	if err != nil {
		return nil, err
	}
	if len(events) == 0 {
		return nil, connect.ErrNotFound
	}
	return &events[0], nil
}

func (t *tx) EventSeqAt(at time.Time) (int64, error) {
	var seq int64
	_, err := t.scan(`SELECT COALESCE(
		(SELECT seq FROM events WHERE created_ns >= $1 AND seq IS NOT NULL ORDER BY created_ns, seq LIMIT 1),
		(SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM events_seq) + 1)`, []any{at.UnixNano()}, &seq)
	return seq, errors.Wrap(err, "finding an event by time")
}

func (t *tx) PruneEvents(cutoff time.Time, limit int) (int, error) {
	if limit <= 0 {
		return 0, nil
	}
	if err := t.s.numberLeftovers(t.ctx); err != nil {
		return 0, err
	}
	// Rows another replica is pruning are skipped, not waited for.
	tag, err := t.exec(`DELETE FROM events WHERE pending_id IN (
		SELECT pending_id FROM events WHERE created_ns < $1 AND seq IS NOT NULL
		ORDER BY created_ns LIMIT $2 FOR UPDATE SKIP LOCKED)`, cutoff.UnixNano(), limit)
	return int(tag.RowsAffected()), err
}

func (t *tx) CountEvents() (int, error) {
	var n int
	_, err := t.scan(`SELECT count(*) FROM events`, nil, &n)
	return n, errors.Wrap(err, "counting events")
}

// --- delivery attempts

func (t *tx) AppendAttempt(a *store.Attempt) error {
	id, err := t.nextID("attempts_id_seq")
	if err != nil {
		return err
	}
	a.ID = id
	doc, err := encode(a)
	if err != nil {
		return err
	}
	_, err = t.exec(`INSERT INTO attempts (id, subscription_id, at_ns, doc) VALUES ($1, $2, $3, $4)`, id, a.SubscriptionID, a.At.UnixNano(), doc)
	return err
}

func (t *tx) Attempts(tenantID string, subscriptionID, before int64, limit int) ([]store.Attempt, error) {
	if _, err := t.Subscription(tenantID, subscriptionID); err != nil {
		return nil, err
	}
	if before <= 0 {
		before = math.MaxInt64
	}
	return all[store.Attempt](t, `SELECT doc FROM attempts WHERE subscription_id = $1 AND id < $2 ORDER BY id DESC LIMIT $3`, subscriptionID, before, limit)
}

func (t *tx) PruneAttempts(cutoff time.Time, limit int) (int, error) {
	tag, err := t.exec(`DELETE FROM attempts WHERE id IN (
		SELECT id FROM attempts WHERE at_ns < $1 ORDER BY at_ns LIMIT $2 FOR UPDATE SKIP LOCKED)`, cutoff.UnixNano(), limit)
	return int(tag.RowsAffected()), err
}

// numberLeftovers numbers events left unnumbered by a writer that died
// between its commit and its numbering pass, unless a pass is running: then
// that pass numbers them, and replicas pruning at once do not wait for it.
// It is a short transaction of its own, committed without waiting for the
// disk like every pass, so the outbox lock is never held while the caller's
// transaction prunes: writers never wait for a prune.
func (s *Store) numberLeftovers(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	err := pgx.BeginFunc(ctx, s.pool, func(ptx pgx.Tx) error {
		if _, err := ptx.Exec(ctx, "SET LOCAL synchronous_commit = off"); err != nil {
			return err
		}
		var locked bool
		if err := ptx.QueryRow(ctx, "SELECT pg_try_advisory_xact_lock($1)", outboxLock).Scan(&locked); err != nil || !locked {
			return err
		}
		_, err := ptx.Exec(ctx, numberingSQL)
		return err
	})
	return errors.Wrap(err, "numbering leftover events")
}

// --- subscriptions

func (t *tx) CreateSubscription(s *store.Subscription) error {
	id, err := t.nextID("subscriptions_id_seq")
	if err != nil {
		return err
	}
	s.ID = id
	// The last number handed out so far: the subscription receives the
	// events numbered after it (see numberEvents), which includes events of
	// transactions that committed just before but were not numbered yet.
	_, err = t.scan(`SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM events_seq`, nil, &s.Cursor)
	if err != nil {
		return errors.Wrap(err, "reading the last event number")
	}
	doc, err := encode(s)
	if err != nil {
		return err
	}
	_, err = t.exec(`INSERT INTO subscriptions (id, tenant_id, doc) VALUES ($1, $2, $3)`, id, s.TenantID, doc)
	return err
}

func (t *tx) Subscription(tenantID string, id int64) (*store.Subscription, error) {
	return one[store.Subscription](t, `SELECT doc FROM subscriptions WHERE id = $1 AND tenant_id = $2`+t.forUpdate(), id, tenantID)
}

func (t *tx) PutSubscription(s *store.Subscription) error {
	doc, err := encode(s)
	if err != nil {
		return err
	}
	tag, err := t.exec(`UPDATE subscriptions SET doc = $3 WHERE id = $1 AND tenant_id = $2`, s.ID, s.TenantID, doc)
	if err == nil && tag.RowsAffected() == 0 {
		return connect.ErrNotFound
	}
	return err
}

func (t *tx) DeleteSubscription(tenantID string, id int64) error {
	tag, err := t.exec(`DELETE FROM subscriptions WHERE id = $1 AND tenant_id = $2`, id, tenantID)
	if err == nil && tag.RowsAffected() == 0 {
		return connect.ErrNotFound
	}
	return err
}

func (t *tx) Subscriptions(tenantID string) ([]store.Subscription, error) {
	return all[store.Subscription](t, `SELECT doc FROM subscriptions WHERE $1 = '' OR tenant_id = $1 ORDER BY id`, tenantID)
}
