package postgres

import (
	"maps"
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

// flush sends the buffered writes in one batch.
func (t *tx) flush() error {
	p := &t.pending
	if p.empty() {
		return nil
	}
	b := &pgx.Batch{}
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
		queueJobCounts(b, p.jobCounts)
	}
	*p = pending{}
	err := t.ptx.SendBatch(t.ctx, b).Close()
	return t.note(errors.Wrap(err, "writing targets and jobs"))
}

// queueJobCounts adds counts (negative for deleted jobs) to the list totals.
// Rows are upserted in key order, so concurrent transactions lock them in the
// same order.
func queueJobCounts(b *pgx.Batch, counts map[jobCountKey]int64) {
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
	b.Queue(`INSERT INTO job_counts AS c (tenant_id, filter, status_key, source_key, n)
		SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[])
		ON CONFLICT (tenant_id, filter, status_key, source_key) DO UPDATE SET n = c.n + EXCLUDED.n`,
		tenants, filters, statuses, sources, ns)
}
