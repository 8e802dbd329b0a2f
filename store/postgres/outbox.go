package postgres

import (
	"slices"
	"time"

	"github.com/cockroachdb/errors"
	"github.com/go-json-experiment/json"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/store"
)

// outboxLock is the advisory lock every commit that appends events holds
// while it numbers them: numbers then follow commit order. (Any constant
// works; this one spells "outbox" in ASCII.)
const outboxLock int64 = 0x6f7574626f78

// AppendEvent buffers e; it is numbered (e.Seq set) and inserted when the
// transaction commits, so that numbers follow commit order.
func (t *tx) AppendEvent(e *store.Event) error {
	if !t.write {
		return errors.AssertionFailedf("appending an event in a read-only transaction")
	}
	t.events = append(t.events, e)
	return nil
}

// insertEvents numbers and inserts the buffered events under the outbox lock.
// It runs right before COMMIT, so the lock is held as briefly as it can be.
func (t *tx) insertEvents() error {
	if len(t.events) == 0 {
		return nil
	}
	var ids, tenants, kinds []string
	var created []int64
	var docs [][]byte
	for _, e := range t.events {
		doc, err := encode(e)
		if err != nil {
			return err
		}
		ids, tenants, kinds = append(ids, e.ID), append(tenants, e.TenantID), append(kinds, string(e.Kind))
		created, docs = append(created, e.CreatedAt.UnixNano()), append(docs, doc)
	}
	if _, err := t.ptx.Exec(t.ctx, "SELECT pg_advisory_xact_lock($1)", outboxLock); err != nil {
		return t.note(errors.Wrap(err, "taking the outbox lock"))
	}
	// The doc is stored without its number (the record's seq is the column):
	// the number is only known once the row is inserted.
	rows, err := t.ptx.Query(t.ctx, `INSERT INTO events (seq, tenant_id, kind, created_ns, doc)
		SELECT nextval('events_seq'), u.tenant_id, u.kind, u.created_ns, u.doc
		FROM unnest($1::text[], $2::text[], $3::bigint[], $4::json[]) WITH ORDINALITY AS u(tenant_id, kind, created_ns, doc, n)
		ORDER BY u.n
		RETURNING seq`, tenants, kinds, created, docs)
	if err != nil {
		return t.note(errors.Wrap(err, "appending events"))
	}
	defer rows.Close()
	var seqs []int64
	for rows.Next() {
		var seq int64
		if err := rows.Scan(&seq); err != nil {
			return errors.WithStack(err)
		}
		seqs = append(seqs, seq)
	}
	if err := rows.Err(); err != nil {
		return t.note(errors.Wrap(err, "appending events"))
	}
	// nextval ran in array order, so sorted numbers belong to the events in
	// the order they were appended.
	slices.Sort(seqs)
	for i, e := range t.events {
		e.Seq = seqs[i]
	}
	return nil
}

func (t *tx) NextEvent(tenantID string, kinds []connect.EventKind, after int64) (*store.Event, error) {
	if len(kinds) == 0 {
		return nil, connect.ErrNotFound
	}
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = string(k)
	}
	// One index seek per kind (a LATERAL subquery each), then the smallest.
	var seq int64
	var doc []byte
	if err := t.flush(); err != nil {
		return nil, err
	}
	err := t.ptx.QueryRow(t.ctx, `SELECT e.seq, e.doc FROM unnest($2::text[]) AS k(kind)
		CROSS JOIN LATERAL (SELECT seq, doc FROM events
			WHERE tenant_id = $1 AND kind = k.kind AND seq > $3 ORDER BY seq LIMIT 1) e
		ORDER BY e.seq LIMIT 1`, tenantID, names, after).Scan(&seq, &doc)
	if err != nil {
		return nil, notFoundOr(t, err)
	}
	var e store.Event
	if err := json.Unmarshal(doc, &e); err != nil {
		return nil, errors.Wrap(err, "decoding an event")
	}
	e.Seq = seq
	return &e, nil
}

func (t *tx) PruneEvents(cutoff time.Time, limit int) (int, error) {
	if limit <= 0 {
		return 0, nil
	}
	subs, err := t.Subscriptions("")
	if err != nil {
		return 0, err
	}
	// marks: for each (tenant, kind) some subscription wants, the lowest
	// cursor among those subscriptions; events above it still wait.
	marks := map[[2]string]int64{}
	for _, s := range subs {
		for _, kind := range s.Kinds {
			k := [2]string{s.TenantID, string(kind)}
			if mark, ok := marks[k]; !ok || s.Cursor < mark {
				marks[k] = s.Cursor
			}
		}
	}
	var tenants, kinds []string
	var cursors []int64
	for k, mark := range marks {
		tenants, kinds, cursors = append(tenants, k[0]), append(kinds, k[1]), append(cursors, mark)
	}
	// An event goes when it is older than cutoff, no subscription waits for
	// it, and no event of its tenant and kind before it is recent (a range is
	// pruned from its start up to the first event that must stay). Rows
	// another replica is pruning are skipped, not waited for.
	tag, err := t.exec(`DELETE FROM events WHERE seq IN (
		SELECT e.seq FROM events e
		LEFT JOIN unnest($1::text[], $2::text[], $3::bigint[]) AS m(tenant_id, kind, mark)
		  ON m.tenant_id = e.tenant_id AND m.kind = e.kind
		WHERE e.created_ns < $4 AND (m.mark IS NULL OR e.seq <= m.mark)
		  AND NOT EXISTS (SELECT 1 FROM events r
			WHERE r.tenant_id = e.tenant_id AND r.kind = e.kind AND r.seq < e.seq AND r.created_ns >= $4)
		ORDER BY e.seq LIMIT $5
		FOR UPDATE OF e SKIP LOCKED)`, tenants, kinds, cursors, cutoff.UnixNano(), limit)
	return int(tag.RowsAffected()), err
}

// --- subscriptions

func (t *tx) CreateSubscription(s *store.Subscription) error {
	id, err := t.nextID("subscriptions_id_seq")
	if err != nil {
		return err
	}
	s.ID = id
	// The last number handed out so far: an event numbered later commits
	// later (see insertEvents), so the subscription receives exactly those.
	err = t.ptx.QueryRow(t.ctx, `SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM events_seq`).Scan(&s.Cursor)
	if err != nil {
		return t.note(errors.Wrap(err, "reading the last event number"))
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
