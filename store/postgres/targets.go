package postgres

import (
	"strings"
	"time"

	"github.com/cockroachdb/errors"
	"github.com/go-json-experiment/json"
	"github.com/jackc/pgx/v5"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/store"
)

// --- clients

func (t *tx) CreateClient(c *store.Client) error {
	taken, err := t.exists(`SELECT 1 FROM clients WHERE tenant_id = $1 AND client_id = $2`+t.forUpdate(), c.TenantID, c.ClientID)
	if err != nil {
		return err
	}
	if taken {
		return connect.Errorf(connect.CodeInvalidRequest, "tenant %q already has a client %q", c.TenantID, c.ClientID)
	}
	doc, err := encode(c)
	if err != nil {
		return err
	}
	_, err = t.exec(`INSERT INTO clients (tenant_id, client_id, key_hash, doc) VALUES ($1, $2, $3, $4)`, c.TenantID, c.ClientID, c.KeyHash, doc)
	return err
}

func (t *tx) PutClient(c *store.Client) error {
	doc, err := encode(c)
	if err != nil {
		return err
	}
	tag, err := t.exec(`UPDATE clients SET key_hash = $3, doc = $4 WHERE tenant_id = $1 AND client_id = $2`, c.TenantID, c.ClientID, c.KeyHash, doc)
	if err == nil && tag.RowsAffected() == 0 {
		return connect.ErrNotFound
	}
	return err
}

func (t *tx) Client(tenantID, clientID string) (*store.Client, error) {
	return one[store.Client](t, `SELECT doc FROM clients WHERE tenant_id = $1 AND client_id = $2`+t.forUpdate(), tenantID, clientID)
}

func (t *tx) ClientByKeyHash(hash []byte) (*store.Client, error) {
	return one[store.Client](t, `SELECT doc FROM clients WHERE key_hash = $1`+t.forUpdate(), hash)
}

func (t *tx) Clients(tenantID string) ([]store.Client, error) {
	return all[store.Client](t, `SELECT doc FROM clients WHERE $1 = '' OR tenant_id = $1 ORDER BY tenant_id, client_id`, tenantID)
}

// --- targets

// targetIdentity is what identifies a target within the store.
type targetIdentity struct{ tenant, source, externalID string }

func identityOf(t *store.Target) targetIdentity {
	return targetIdentity{t.TenantID, t.SourceSystem, t.ExternalID}
}

func (t *tx) TargetByExternalID(tenantID, sourceSystem, externalID string) (*store.Target, error) {
	id := targetIdentity{tenantID, sourceSystem, externalID}
	if _, known := t.targets[id]; !known {
		t.targets[id] = nil
		err := t.read(func(rows pgx.Rows) error { return t.rememberRows(rows, nil) },
			`SELECT doc FROM targets WHERE tenant_id = $1 AND source_system = $2 AND external_id = $3`+t.forUpdate(),
			tenantID, sourceSystem, externalID)
		if err != nil {
			return nil, err
		}
	}
	return t.targets[id].decode()
}

func (t *tx) TenantTargets(tenantID string, fn func(*store.Target) error) error {
	return each(t, fn, `SELECT doc FROM targets WHERE tenant_id = $1`, tenantID)
}

// targetsByKeySQL reads the targets of tenant $1 whose source systems and
// external ids are the elements of $2 and $3, each by a probe of its own
// (see planProbe), with the locking clause lock.
func targetsByKeySQL(lock string) string {
	return `SELECT t.doc FROM unnest($2::text[], $3::text[]) AS k(source_system, external_id)
		CROSS JOIN LATERAL (SELECT doc FROM targets
			WHERE tenant_id = $1 AND source_system = k.source_system AND external_id = k.external_id
			LIMIT 1` + lock + `) t`
}

func (t *tx) TargetsByExternalID(tenantID string, keys []store.TargetKey) (map[store.TargetKey]*store.Target, error) {
	found := make(map[store.TargetKey]*store.Target, len(keys))
	var sources, externalIDs []string
	for _, k := range keys {
		if _, known := t.targets[targetIdentity{tenantID, k.SourceSystem, k.ExternalID}]; !known {
			sources, externalIDs = append(sources, k.SourceSystem), append(externalIDs, k.ExternalID)
		}
	}
	if len(sources) > 0 {
		for i := range sources {
			t.targets[targetIdentity{tenantID, sources[i], externalIDs[i]}] = nil
		}
		b := &pgx.Batch{}
		if t.write && t.jobID == 0 {
			// This lookup is how every import starts, and every import
			// creates one job: its id comes in the same round trip. (A
			// transaction that creates none leaves a gap in job ids, as a
			// rollback does.)
			b.Queue(`SELECT nextval('jobs_id_seq')`).QueryRow(func(row pgx.Row) error { return row.Scan(&t.jobID) })
		}
		// Targets just read are decoded once, straight into the answer.
		b.Queue(targetsByKeySQL(t.forUpdate()), tenantID, sources, externalIDs).Query(func(rows pgx.Rows) error {
			return t.rememberRows(rows, func(target *store.Target) {
				found[store.TargetKey{SourceSystem: target.SourceSystem, ExternalID: target.ExternalID}] = target
			})
		})
		if err := t.roundTripPlanned(b, planProbe); err != nil {
			return nil, err
		}
	}
	for _, k := range keys {
		rec := t.targets[targetIdentity{tenantID, k.SourceSystem, k.ExternalID}]
		if _, done := found[k]; done || rec == nil {
			continue
		}
		target, err := rec.decode()
		if err != nil {
			return nil, err
		}
		found[k] = target
	}
	return found, nil
}

// rememberRows keeps the targets of rows (their doc column) and hands each,
// decoded, to use (when not nil).
func (t *tx) rememberRows(rows pgx.Rows, use func(*store.Target)) error {
	for rows.Next() {
		var doc []byte
		if err := rows.Scan(&doc); err != nil {
			return errors.WithStack(err)
		}
		rec := &targetRecord{doc: doc}
		target, err := rec.decode()
		if err != nil {
			return err
		}
		t.remember(target, rec)
		if use != nil {
			use(target)
		}
	}
	return nil
}

// targetRecord is a target as this transaction knows it: the doc it read,
// or a copy of a target it wrote, encoded only when it is sent or read back.
// A batch's new targets are encoded while COPY streams them (copyTargets),
// so the encoding overlaps the database's work instead of preceding it.
type targetRecord struct {
	doc     []byte
	written *store.Target // until doc is encoded from it
}

// writtenRecord is the record of target as it is now: a copy, which a
// caller may set new field values on and write again (store.TargetTx).
func writtenRecord(target *store.Target) *targetRecord {
	written := *target
	return &targetRecord{written: &written}
}

// encoded returns the record's doc, encoding it the first time.
func (r *targetRecord) encoded() ([]byte, error) {
	if r.doc == nil {
		doc, err := encode(r.written, compact)
		if err != nil {
			return nil, err
		}
		r.doc, r.written = doc, nil
	}
	return r.doc, nil
}

// decode returns a target of its own for the record; a nil record is a
// target known not to exist.
func (r *targetRecord) decode() (*store.Target, error) {
	if r == nil {
		return nil, connect.ErrNotFound
	}
	doc, err := r.encoded()
	if err != nil {
		return nil, err
	}
	var target store.Target
	if err := json.Unmarshal(doc, &target); err != nil {
		return nil, errors.Wrap(err, "decoding a target")
	}
	return &target, nil
}

func (t *tx) Target(tenantID string, id int64) (*store.Target, error) {
	return one[store.Target](t, `SELECT doc FROM targets WHERE id = $1 AND tenant_id = $2`+t.forUpdate(), id, tenantID)
}

func (t *tx) CreateTarget(target *store.Target) error {
	if _, err := t.TargetByExternalID(target.TenantID, target.SourceSystem, target.ExternalID); err == nil {
		return connect.Errorf(connect.CodeTargetAlreadyExists, "target %q of source system %q already exists", target.ExternalID, target.SourceSystem)
	} else if !errors.Is(err, connect.ErrNotFound) {
		return err
	}
	id, err := t.s.targetIDs.take(t)
	if err != nil {
		return err
	}
	target.ID = id
	rec := writtenRecord(target)
	t.pending.targets.add(id, target.TenantID, target.SourceSystem, target.ExternalID, rec)
	t.remember(target, rec)
	return nil
}

func (t *tx) UpdateTarget(target *store.Target) error {
	identity, err := t.identityOfID(target.ID)
	if err != nil {
		return err
	}
	if identity != identityOf(target) {
		return errors.AssertionFailedf("target %d: identity cannot change", target.ID)
	}
	rec := writtenRecord(target)
	if !t.pending.targets.replace(target.ID, rec) && !t.pending.updates.replace(target.ID, rec) {
		t.pending.updates.add(target.ID, "", "", "", rec)
	}
	t.remember(target, rec)
	return nil
}

// identityOfID returns the identity of the stored (or buffered) target with
// id, from memory when this transaction read or wrote it.
func (t *tx) identityOfID(id int64) (targetIdentity, error) {
	if identity, ok := t.targetIDs[id]; ok {
		return identity, nil
	}
	var identity targetIdentity
	found, err := t.scan(`SELECT tenant_id, source_system, external_id FROM targets WHERE id = $1`+t.forUpdate(), []any{id},
		&identity.tenant, &identity.source, &identity.externalID)
	return identity, notFound(found, err)
}

// remember keeps the record of a target this transaction read or wrote.
// Every lookup decodes a target of its own from it, so no caller can change
// what a later lookup returns.
func (t *tx) remember(target *store.Target, rec *targetRecord) {
	t.targets[identityOf(target)] = rec
	t.targetIDs[target.ID] = identityOf(target)
}

// --- jobs

func (t *tx) CreateJob(j *store.Job) error {
	id := t.jobID // taken with the import's lookup of its targets
	if id == 0 {
		var err error
		if id, err = t.nextID("jobs_id_seq"); err != nil {
			return err
		}
	}
	t.jobID = 0
	j.ID = id
	summary := *j
	summary.Items = nil
	doc, err := encode(&summary)
	if err != nil {
		return err
	}
	items, err := encode(j.Items, compact)
	if err != nil {
		return err
	}
	status, source := strings.ToLower(string(j.Status)), strings.ToLower(j.SourceSystem)
	p := &t.pending
	p.jobs.ids, p.jobs.tenants = append(p.jobs.ids, id), append(p.jobs.tenants, j.TenantID)
	p.jobs.statusKeys, p.jobs.sourceKeys = append(p.jobs.statusKeys, status), append(p.jobs.sourceKeys, source)
	p.jobs.docs, p.jobs.items = append(p.jobs.docs, doc), append(p.jobs.items, items)
	p.jobs.createdNs = append(p.jobs.createdNs, j.CreatedAtUtc.UnixNano())
	p.countJob(j.TenantID, status, source, 1)
	return nil
}

func (t *tx) Job(tenantID string, id int64) (*store.Job, error) {
	var doc, items []byte
	found, err := t.scan(`SELECT doc, items FROM jobs WHERE id = $1 AND tenant_id = $2`+t.forUpdate(), []any{id, tenantID}, &doc, &items)
	if err != nil || !found {
		return nil, notFound(found, err)
	}
	var j store.Job
	if err := json.Unmarshal(doc, &j); err != nil {
		return nil, errors.Wrap(err, "decoding a job")
	}
	return &j, errors.Wrap(json.Unmarshal(items, &j.Items), "decoding a job's items")
}

func (t *tx) Jobs(tenantID string, f store.JobFilter, skip, take int) ([]connect.ImportJobSummary, int, error) {
	status, source := strings.ToLower(f.Status), strings.ToLower(f.SourceSystem)
	filter, where := "all", ""
	switch {
	case f.Status != "" && f.SourceSystem != "":
		filter, where = "status+source", " AND status_key = $2 AND source_key = $3"
	case f.Status != "":
		filter, where, source = "status", " AND status_key = $2 AND $3 = ''", ""
	case f.SourceSystem != "":
		filter, where, status = "source", " AND source_key = $3 AND $2 = ''", ""
	default:
		where = " AND $2 = '' AND $3 = ''"
	}
	var total int
	_, err := t.scan(`SELECT coalesce(sum(n), 0) FROM job_counts WHERE tenant_id = $1 AND filter = $2 AND status_key = $3 AND source_key = $4`,
		[]any{tenantID, filter, status, source}, &total)
	if err != nil {
		return nil, 0, errors.Wrap(err, "counting jobs")
	}
	jobs := make([]connect.ImportJobSummary, 0, max(min(take, total-skip), 0))
	if take <= 0 || skip >= total {
		return jobs, total, nil
	}
	list, err := all[store.Job](t, `SELECT doc FROM jobs WHERE tenant_id = $1`+where+` ORDER BY id DESC OFFSET $4 LIMIT $5`,
		tenantID, status, source, skip, take)
	for _, j := range list {
		jobs = append(jobs, j.ImportJobSummary)
	}
	return jobs, total, err
}

// DeleteJobsCreatedBefore implements store.JobTx. The jobs are locked with
// SKIP LOCKED, so replicas deleting at the same time take different jobs and
// never wait for each other; the list totals are lowered in key order, as
// imports raise them.
func (t *tx) DeleteJobsCreatedBefore(cutoff time.Time, limit int) (int, error) {
	if limit <= 0 {
		return 0, nil
	}
	deleted := 0
	err := t.read(func(rows pgx.Rows) error {
		for rows.Next() {
			var tenant, status, source string
			if err := rows.Scan(&tenant, &status, &source); err != nil {
				return errors.WithStack(err)
			}
			t.pending.countJob(tenant, status, source, -1) // sent with the commit
			deleted++
		}
		return nil
	}, `DELETE FROM jobs WHERE id IN (
		SELECT id FROM jobs WHERE created_ns < $1 ORDER BY created_ns, id LIMIT $2 FOR UPDATE SKIP LOCKED)
		RETURNING tenant_id, status_key, source_key`, cutoff.UnixNano(), limit)
	return deleted, errors.Wrap(err, "deleting jobs")
}

// --- idempotency

func (t *tx) IdempotencyRecord(key store.IdempotencyKey) (*store.IdempotencyRecord, error) {
	t.lockKeys(lockKey("idempotency", key.TenantID, key.ClientID, key.Key))
	return one[store.IdempotencyRecord](t, `SELECT doc FROM idempotency_records WHERE tenant_id = $1 AND client_id = $2 AND key = $3`+t.forUpdate(),
		key.TenantID, key.ClientID, key.Key)
}

// PutIdempotencyRecord buffers r: it is written with the transaction's next
// round trip, at the latest with its COMMIT.
func (t *tx) PutIdempotencyRecord(r *store.IdempotencyRecord) error {
	doc, err := encode(r)
	if err != nil {
		return err
	}
	t.pending.putRecord(r.Key, idempotencyRow{expiresNs: r.Expiry().UnixNano(), doc: doc})
	return nil
}

func (t *tx) PurgeIdempotencyRecords(now time.Time, limit int) (int, error) {
	if limit <= 0 {
		return 0, nil
	}
	tag, err := t.exec(`DELETE FROM idempotency_records WHERE ctid IN (
		SELECT ctid FROM idempotency_records WHERE expires_ns <= $1
		ORDER BY expires_ns LIMIT $2 FOR UPDATE SKIP LOCKED)`, now.UnixNano(), limit)
	return int(tag.RowsAffected()), err
}
