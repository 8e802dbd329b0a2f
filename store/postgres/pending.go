package postgres

import (
	"maps"
	mrand "math/rand/v2"
	"slices"

	"github.com/cockroachdb/errors"
	"github.com/jackc/pgx/v5"
)

// pending are the writes a transaction has buffered: the rows of many
// CreateTarget, UpdateTarget and CreateJob calls travel in one pipelined
// batch of set-based statements instead of a round trip each.
type pending struct {
	targets   targetRows
	updates   targetRows
	jobs      jobRows
	jobCounts map[jobCountKey]int64
}

type targetRows struct {
	ids                           []int64
	tenants, sources, externalIDs []string
	docs                          [][]byte
}

func (r *targetRows) add(id int64, tenant, source, externalID string, doc []byte) {
	r.ids = append(r.ids, id)
	r.tenants, r.sources, r.externalIDs = append(r.tenants, tenant), append(r.sources, source), append(r.externalIDs, externalID)
	r.docs = append(r.docs, doc)
}

// replace changes the doc of a buffered row of id; false when there is none.
func (r *targetRows) replace(id int64, doc []byte) bool {
	i := slices.Index(r.ids, id)
	if i < 0 {
		return false
	}
	r.docs[i] = doc
	return true
}

type jobRows struct {
	ids, createdNs                  []int64
	tenants, statusKeys, sourceKeys []string
	docs, items                     [][]byte
}

// jobCountKey is one job list filter's total: filter is "all", "status",
// "source" or "status+source"; the keys it does not use are "".
type jobCountKey struct{ tenant, filter, status, source string }

func (p *pending) empty() bool {
	return len(p.targets.ids) == 0 && len(p.updates.ids) == 0 && len(p.jobs.ids) == 0
}

func (p *pending) countJob(tenant, status, source string) {
	if p.jobCounts == nil {
		p.jobCounts = map[jobCountKey]int64{}
	}
	for _, k := range jobCountKeys(tenant, status, source) {
		p.jobCounts[k]++
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

// counterSlots is how many rows a counter is striped over (see the
// migrations; the column takes any number): concurrent writers rarely wait
// for each other's row, which each holds until its commit is on disk. 64
// rather than 16: with 64 concurrent single imports, 16 rows made the
// counter rows the largest wait once events were numbered in shared passes
// (issue 22); a count sums at most 64 small rows.
const counterSlots = 64

// counterSlot picks the row of each striped counter a transaction adds to:
// one for the whole transaction, so two transactions cannot lock each
// other's rows in opposite orders.
func counterSlot() int16 { return int16(mrand.IntN(counterSlots)) }

// flush sends the buffered writes in one batch (and many new targets with
// COPY before it).
func (t *tx) flush() error {
	if t.pending.empty() {
		return nil
	}
	if err := t.copyTargets(); err != nil {
		return err
	}
	b := &pgx.Batch{}
	t.queuePending(b)
	return t.send(b)
}

// send sends a batch and waits for all of it.
func (t *tx) send(b *pgx.Batch) error {
	if b.Len() == 0 {
		return nil
	}
	err := t.ptx.SendBatch(t.ctx, b).Close()
	return t.note(errors.Wrap(err, "writing targets, jobs and events"))
}

// queuePending moves the buffered writes into b as set-based statements.
func (t *tx) queuePending(b *pgx.Batch) {
	p := &t.pending
	if r := p.targets; len(r.ids) > 0 {
		b.Queue(`INSERT INTO targets (id, tenant_id, source_system, external_id, doc)
			SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::json[])`,
			r.ids, r.tenants, r.sources, r.externalIDs, r.docs)
	}
	if r := p.updates; len(r.ids) > 0 {
		b.Queue(`UPDATE targets SET doc = u.doc FROM unnest($1::bigint[], $2::json[]) AS u(id, doc) WHERE targets.id = u.id`,
			r.ids, r.docs)
	}
	if j := p.jobs; len(j.ids) > 0 {
		b.Queue(`INSERT INTO jobs (id, tenant_id, status_key, source_key, doc, items, created_ns)
			SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::json[], $6::json[], $7::bigint[])`,
			j.ids, j.tenants, j.statusKeys, j.sourceKeys, j.docs, j.items, j.createdNs)
		queueJobCounts(b, p.jobCounts, t.slot)
	}
	*p = pending{}
}

// copyTargets sends the new targets with COPY when there are many.
func (t *tx) copyTargets() error {
	r := &t.pending.targets
	if len(r.ids) < copyThreshold {
		return nil
	}
	rows := make([][]any, len(r.ids))
	for i := range r.ids {
		rows[i] = []any{r.ids[i], r.tenants[i], r.sources[i], r.externalIDs[i], r.docs[i]}
	}
	*r = targetRows{}
	_, err := t.ptx.CopyFrom(t.ctx, pgx.Identifier{"targets"}, []string{"id", "tenant_id", "source_system", "external_id", "doc"}, pgx.CopyFromRows(rows))
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
