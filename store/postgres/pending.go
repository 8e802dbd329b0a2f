package postgres

import (
	"context"
	"maps"
	"slices"

	"github.com/cockroachdb/errors"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/integration-connect/connect/store"
)

// pending are the writes a transaction has buffered: its advisory locks, the
// rows of many CreateTarget, UpdateTarget and CreateJob calls, the changes
// of job list totals and the idempotency records travel as set-based
// statements in the transaction's next round trip instead of a round trip
// each.
type pending struct {
	// locks and sharedLocks are advisory lock keys (see lockKeys), taken
	// before the rest, each kind in key order so they cannot deadlock each
	// other.
	locks, sharedLocks []int64
	targets            targetRows
	updates            targetRows
	jobs               jobRows
	jobCounts          map[jobCountKey]int64
	records            map[store.IdempotencyKey]idempotencyRow
}

type idempotencyRow struct {
	expiresNs int64
	doc       []byte
}

// targetRows are buffered target writes; each record is encoded when the
// rows are sent.
type targetRows struct {
	ids                           []int64
	tenants, sources, externalIDs []string
	records                       []*targetRecord
}

func (r *targetRows) add(id int64, tenant, source, externalID string, rec *targetRecord) {
	r.ids = append(r.ids, id)
	r.tenants, r.sources, r.externalIDs = append(r.tenants, tenant), append(r.sources, source), append(r.externalIDs, externalID)
	r.records = append(r.records, rec)
}

// replace changes the record of a buffered row of id; false when there is
// none.
func (r *targetRows) replace(id int64, rec *targetRecord) bool {
	i := slices.Index(r.ids, id)
	if i < 0 {
		return false
	}
	r.records[i] = rec
	return true
}

// docs are the rows' docs, encoded.
func (r *targetRows) docs() ([][]byte, error) {
	docs := make([][]byte, len(r.records))
	for i, rec := range r.records {
		var err error
		if docs[i], err = rec.encoded(); err != nil {
			return nil, err
		}
	}
	return docs, nil
}

// targetCopy streams rows to COPY (pgx.CopyFromSource), encoding each doc
// as pgx asks for its row: while the database takes in the rows before it.
type targetCopy struct {
	rows targetRows
	next int
}

// Next reports whether there is another row, moving to it.
func (c *targetCopy) Next() bool {
	c.next++
	return c.next <= len(c.rows.ids)
}

// Values are the columns of the current row.
func (c *targetCopy) Values() ([]any, error) {
	r, i := &c.rows, c.next-1
	doc, err := r.records[i].encoded()
	return []any{r.ids[i], r.tenants[i], r.sources[i], r.externalIDs[i], doc}, err
}

// Err is nil: a row that cannot be encoded fails in Values.
func (c *targetCopy) Err() error { return nil }

type jobRows struct {
	ids, createdNs                  []int64
	tenants, statusKeys, sourceKeys []string
	docs, items                     [][]byte
}

// jobCountKey is one job list filter's total: filter is "all", "status",
// "source" or "status+source"; the keys it does not use are "".
type jobCountKey struct{ tenant, filter, status, source string }

// putRecord buffers the write of an idempotency record; a later one of the
// same key replaces it.
func (p *pending) putRecord(key store.IdempotencyKey, r idempotencyRow) {
	if p.records == nil {
		p.records = map[store.IdempotencyKey]idempotencyRow{}
	}
	p.records[key] = r
}

// countJob adds delta jobs (-1 for a deleted one) to the list totals a job
// of tenant with these (folded) status and source system counts in.
func (p *pending) countJob(tenant, status, source string, delta int64) {
	if p.jobCounts == nil {
		p.jobCounts = map[jobCountKey]int64{}
	}
	for _, k := range jobCountKeys(tenant, status, source) {
		p.jobCounts[k] += delta
	}
}

// jobCountKeys are the list totals a job of tenant with these (folded)
// status and source system counts in.
func jobCountKeys(tenant, status, source string) []jobCountKey {
	return []jobCountKey{
		{tenant, "all", "", ""}, {tenant, "status", status, ""},
		{tenant, "source", "", source}, {tenant, "status+source", status, source},
	}
}

// copyThreshold is the number of new targets from which COPY beats an
// INSERT from unnest in the batch, despite its round trip of its own.
const copyThreshold = 100

// counterSlotKey is where a connection keeps its counter slot (pgconn's
// CustomData).
const counterSlotKey = "counterSlot"

// dealCounterSlots gives each connection the pool opens a counter slot: the
// row of each striped counter its transactions add to, the next of the
// counter_slots sequence (0 to 63, cycling: a count sums at most 64 small
// rows), which every replica deals from. A writer holds its row until its
// commit is on disk, so rows of their own keep concurrent transactions from
// waiting for each other while no more than 64 connections write at once.
// (A slot picked at random per transaction put two of 32 concurrent imports
// on one row about half the time: the counter upsert waited 0.38 ms on
// average for the other's commit, against 0.06 ms now.) A transaction adds
// to one slot only, so two cannot lock each other's rows in opposite orders.
func dealCounterSlots(cfg *pgxpool.Config) {
	cfg.AfterConnect = func(ctx context.Context, conn *pgx.Conn) error {
		var slot int16
		err := conn.QueryRow(ctx, `SELECT nextval('counter_slots')`).Scan(&slot)
		conn.PgConn().CustomData()[counterSlotKey] = slot
		return errors.Wrap(err, "taking a counter slot")
	}
}

// counterSlot is the counter slot of conn (see dealCounterSlots).
func counterSlot(conn *pgxpool.Conn) int16 {
	return conn.Conn().PgConn().CustomData()[counterSlotKey].(int16)
}

// queuePending moves the buffered writes into b as set-based statements
// and, committing, the transaction's events. Job list totals are changed
// last: their rows are the ones concurrent writers may share (see
// dealCounterSlots), so they are locked for the shortest time. All but the
// targets' UPDATE, which joins targets, run under planKept.
func (t *tx) queuePending(b *pgx.Batch, committing bool) error {
	p := &t.pending
	defer func() { *p = pending{} }()
	if r := p.updates; len(r.ids) > 0 {
		docs, err := r.docs()
		if err != nil {
			return err
		}
		t.plan(b, planDefault)
		b.Queue(`UPDATE targets SET doc = u.doc FROM unnest($1::bigint[], $2::json[]) AS u(id, doc) WHERE targets.id = u.id`,
			r.ids, docs)
	}
	events := committing && len(t.events) > 0
	if !p.planFree() && !events {
		return nil
	}
	t.plan(b, planKept)
	if len(p.locks) > 0 {
		slices.Sort(p.locks)
		b.Queue(`SELECT pg_advisory_xact_lock(k) FROM unnest($1::bigint[]) k ORDER BY k`, p.locks)
	}
	if len(p.sharedLocks) > 0 {
		slices.Sort(p.sharedLocks)
		b.Queue(`SELECT pg_advisory_xact_lock_shared(k) FROM unnest($1::bigint[]) k ORDER BY k`, p.sharedLocks)
	}
	if r := p.targets; len(r.ids) > 0 {
		docs, err := r.docs()
		if err != nil {
			return err
		}
		b.Queue(`INSERT INTO targets (id, tenant_id, source_system, external_id, doc)
			SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::json[])`,
			r.ids, r.tenants, r.sources, r.externalIDs, docs)
	}
	if j := p.jobs; len(j.ids) > 0 {
		b.Queue(`INSERT INTO jobs (id, tenant_id, status_key, source_key, doc, items, created_ns)
			SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::json[], $6::json[], $7::bigint[])`,
			j.ids, j.tenants, j.statusKeys, j.sourceKeys, j.docs, j.items, j.createdNs)
	}
	if len(p.records) > 0 {
		queueRecords(b, p.records)
	}
	if len(p.jobCounts) > 0 {
		queueJobCounts(b, p.jobCounts, t.slot)
	}
	if events {
		return t.queueEvents(b)
	}
	return nil
}

// planFree reports whether p holds any write but target updates: the writes
// with one plan whatever the data.
func (p *pending) planFree() bool {
	return len(p.locks)+len(p.sharedLocks)+len(p.targets.ids)+len(p.jobs.ids)+len(p.records)+len(p.jobCounts) > 0
}

// queueRecords adds the upsert of idempotency records to b.
func queueRecords(b *pgx.Batch, records map[store.IdempotencyKey]idempotencyRow) {
	var tenants, clients, keys []string
	var expires []int64
	var docs [][]byte
	for k, r := range records {
		tenants, clients, keys = append(tenants, k.TenantID), append(clients, k.ClientID), append(keys, k.Key)
		expires, docs = append(expires, r.expiresNs), append(docs, r.doc)
	}
	b.Queue(`INSERT INTO idempotency_records (tenant_id, client_id, key, expires_ns, doc)
		SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::json[])
		ON CONFLICT (tenant_id, client_id, key) DO UPDATE SET expires_ns = EXCLUDED.expires_ns, doc = EXCLUDED.doc`,
		tenants, clients, keys, expires, docs)
}

// copyTargets sends the new targets with COPY when there are many, after
// the transaction's BEGIN.
func (t *tx) copyTargets() error {
	r := &t.pending.targets
	if len(r.ids) < copyThreshold {
		return nil
	}
	if t.ptx == nil {
		if err := t.send(t.newBatch()); err != nil {
			return err
		}
	}
	rows := &targetCopy{rows: *r}
	*r = targetRows{}
	_, err := t.ptx.CopyFrom(t.ctx, pgx.Identifier{"targets"}, []string{"id", "tenant_id", "source_system", "external_id", "doc"}, rows)
	return t.note(errors.Wrap(err, "writing targets"))
}

// queueJobCounts adds counts (negative for deleted jobs) to the list totals.
// Rows are upserted in key order, so concurrent transactions lock them in the
// same order.
func queueJobCounts(b *pgx.Batch, counts map[jobCountKey]int64, slot int16) {
	keys := slices.Collect(maps.Keys(counts))
	slices.SortFunc(keys, func(a, b jobCountKey) int {
		if a.tenant+"\x00"+a.filter+"\x00"+a.status+"\x00"+a.source < b.tenant+"\x00"+b.filter+"\x00"+b.status+"\x00"+b.source {
			return -1
		}
		return 1
	})
	var tenants, filters, statuses, sources []string
	var ns []int64
	for _, k := range keys {
		tenants, filters, statuses, sources = append(tenants, k.tenant), append(filters, k.filter), append(statuses, k.status), append(sources, k.source)
		ns = append(ns, counts[k])
	}
	b.Queue(`INSERT INTO job_counts AS c (tenant_id, filter, status_key, source_key, slot, n)
		SELECT u.tenant_id, u.filter, u.status_key, u.source_key, $6, u.n
		FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[]) AS u(tenant_id, filter, status_key, source_key, n)
		ON CONFLICT (tenant_id, filter, status_key, source_key, slot) DO UPDATE SET n = c.n + EXCLUDED.n`,
		tenants, filters, statuses, sources, ns, slot)
}
