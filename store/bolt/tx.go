package bolt

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"slices"
	"strings"
	"time"

	"github.com/cockroachdb/errors"
	"github.com/go-json-experiment/json"
	bbolt "go.etcd.io/bbolt"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/store"
)

// tx implements store.Tx on a bbolt transaction.
type tx struct {
	btx *bbolt.Tx
	// written are the targets written in this transaction, by id, until
	// flushTargets puts them (see targets.go).
	written map[int64]*store.Target
}

var _ store.Tx = (*tx)(nil)

// bucket returns a bucket of the file. Buckets whose keys only ever grow fill
// their pages whole when they split (see appendOnly).
func (t *tx) bucket(name []byte) *bbolt.Bucket {
	b := t.btx.Bucket(name)
	if appendOnly[string(name)] {
		b.FillPercent = 1
	}
	return b
}

// --- clients

func (t *tx) CreateClient(c *store.Client) error {
	key := tuple(c.TenantID, c.ClientID)
	if t.bucket(bucketClients).Get(key) != nil {
		return connect.Errorf(connect.CodeInvalidRequest, "tenant %q already has a client %q", c.TenantID, c.ClientID)
	}
	if err := t.bucket(bucketClientKeys).Put(c.KeyHash, key); err != nil {
		return errors.Wrap(err, "indexing a client key")
	}
	return put(t.bucket(bucketClients), key, c)
}

func (t *tx) PutClient(c *store.Client) error {
	key := tuple(c.TenantID, c.ClientID)
	if t.bucket(bucketClients).Get(key) == nil {
		return connect.ErrNotFound
	}
	return put(t.bucket(bucketClients), key, c)
}

func (t *tx) Client(tenantID, clientID string) (*store.Client, error) {
	var c store.Client
	if err := get(t.bucket(bucketClients), tuple(tenantID, clientID), &c); err != nil {
		return nil, err
	}
	return &c, nil
}

func (t *tx) ClientByKeyHash(hash []byte) (*store.Client, error) {
	key := t.bucket(bucketClientKeys).Get(hash)
	if key == nil {
		return nil, connect.ErrNotFound
	}
	var c store.Client
	if err := get(t.bucket(bucketClients), key, &c); err != nil {
		return nil, err
	}
	return &c, nil
}

func (t *tx) Clients(tenantID string) ([]store.Client, error) {
	var prefix []byte
	if tenantID != "" {
		prefix = tuple(tenantID)
	}
	var list []store.Client
	err := scan(t.bucket(bucketClients), prefix, func(_, v []byte) (bool, error) {
		var c store.Client
		err := json.Unmarshal(v, &c)
		list = append(list, c)
		return true, errors.Wrap(err, "decoding a client")
	})
	// Tuple keys sort by length first; the list is documented in string order.
	slices.SortFunc(list, func(a, b store.Client) int {
		return cmp.Or(strings.Compare(a.TenantID, b.TenantID), strings.Compare(a.ClientID, b.ClientID))
	})
	return list, err
}

// --- targets

func (t *tx) TargetByExternalID(tenantID, sourceSystem, externalID string) (*store.Target, error) {
	id := t.bucket(bucketTargetIDs).Get(tuple(tenantID, sourceSystem, externalID))
	if id == nil {
		return nil, connect.ErrNotFound
	}
	return t.targetByID(int64(binary.BigEndian.Uint64(id)))
}

func (t *tx) TenantTargets(tenantID string, fn func(*store.Target) error) error {
	return scan(t.bucket(bucketTargetIDs), tuple(tenantID), func(_, v []byte) (bool, error) {
		target, err := t.targetByID(int64(binary.BigEndian.Uint64(v)))
		if err == nil {
			err = fn(target)
		}
		return err == nil, err
	})
}

func (t *tx) TargetsByExternalID(tenantID string, keys []store.TargetKey) (map[store.TargetKey]*store.Target, error) {
	found := make(map[store.TargetKey]*store.Target, len(keys))
	for _, k := range keys {
		target, err := t.TargetByExternalID(tenantID, k.SourceSystem, k.ExternalID)
		if errors.Is(err, connect.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		found[k] = target
	}
	return found, nil
}

func (t *tx) Target(tenantID string, id int64) (*store.Target, error) {
	target, err := t.targetByID(id)
	if err == nil && target.TenantID != tenantID {
		return nil, connect.ErrNotFound
	}
	return target, err
}

func (t *tx) CreateTarget(target *store.Target) error {
	identity := tuple(target.TenantID, target.SourceSystem, target.ExternalID)
	ids := t.bucket(bucketTargetIDs)
	if ids.Get(identity) != nil {
		return connect.Errorf(connect.CodeTargetAlreadyExists, "target %q of source system %q already exists", target.ExternalID, target.SourceSystem)
	}
	id, err := nextID(t.bucket(bucketTargets))
	if err != nil {
		return err
	}
	target.ID = id
	if err := ids.Put(identity, idKey(id)); err != nil {
		return errors.Wrap(err, "indexing a target")
	}
	t.writeTarget(target)
	return nil
}

func (t *tx) UpdateTarget(target *store.Target) error {
	old, err := t.targetByID(target.ID)
	if err != nil {
		return err
	}
	if old.TenantID != target.TenantID || old.SourceSystem != target.SourceSystem || old.ExternalID != target.ExternalID {
		return errors.AssertionFailedf("target %d: identity cannot change", target.ID)
	}
	t.writeTarget(target)
	return nil
}

// --- jobs

// jobFilterKeys are the index prefixes a job is listed under: one for every
// combination of the filters, so any filtered list is one range scan and its
// total one counter read.
func jobFilterKeys(tenantID, status, source string) [][]byte {
	status, source = strings.ToLower(status), strings.ToLower(source)
	return [][]byte{
		tuple(tenantID, "all"),
		tuple(tenantID, "status", status),
		tuple(tenantID, "source", source),
		tuple(tenantID, "status+source", status, source),
	}
}

func jobFilterKey(tenantID string, f store.JobFilter) []byte {
	status, source := strings.ToLower(f.Status), strings.ToLower(f.SourceSystem)
	switch {
	case f.Status != "" && f.SourceSystem != "":
		return tuple(tenantID, "status+source", status, source)
	case f.Status != "":
		return tuple(tenantID, "status", status)
	case f.SourceSystem != "":
		return tuple(tenantID, "source", source)
	}
	return tuple(tenantID, "all")
}

func (t *tx) CreateJob(j *store.Job) error {
	id, err := nextID(t.bucket(bucketJobs))
	if err != nil {
		return err
	}
	j.ID = id
	summary := *j
	summary.Items = nil
	if err := put(t.bucket(bucketJobs), idKey(id), &summary); err != nil {
		return err
	}
	if err := putDeflated(t.bucket(bucketJobItems), idKey(id), j.Items, compact); err != nil {
		return err
	}
	return t.indexJob(j)
}

func (t *tx) indexJob(j *store.Job) error {
	index, counts := t.bucket(bucketJobIndex), t.bucket(bucketJobCounts)
	for _, prefix := range jobFilterKeys(j.TenantID, string(j.Status), j.SourceSystem) {
		if err := index.Put(append(prefix, descID(j.ID)...), nil); err != nil {
			return errors.Wrap(err, "indexing a job")
		}
		if err := counts.Put(prefix, u64(count(counts, prefix)+1)); err != nil {
			return errors.Wrap(err, "counting a job")
		}
	}
	return nil
}

// DeleteJobsCreatedBefore implements store.JobTx. Job ids increase with their
// creation, so the oldest jobs are the first keys of their bucket. bbolt has
// one writer: there is no one to wait for.
func (t *tx) DeleteJobsCreatedBefore(cutoff time.Time, limit int) (int, error) {
	old, err := oldest(t.bucket(bucketJobs), cutoff, limit, func(j *store.Job) time.Time { return j.CreatedAtUtc })
	if err != nil {
		return 0, err
	}
	for i := range old {
		if err := t.deleteJob(&old[i]); err != nil {
			return 0, err
		}
	}
	return len(old), nil
}

func (t *tx) deleteJob(j *store.Job) error {
	for _, b := range [][]byte{bucketJobs, bucketJobItems} {
		if err := t.bucket(b).Delete(idKey(j.ID)); err != nil {
			return errors.Wrap(err, "deleting a job")
		}
	}
	index, counts := t.bucket(bucketJobIndex), t.bucket(bucketJobCounts)
	for _, prefix := range jobFilterKeys(j.TenantID, string(j.Status), j.SourceSystem) {
		if err := index.Delete(append(prefix, descID(j.ID)...)); err != nil {
			return errors.Wrap(err, "unindexing a job")
		}
		var err error
		if n := count(counts, prefix); n > 1 {
			err = counts.Put(prefix, u64(n-1))
		} else {
			err = counts.Delete(prefix)
		}
		if err != nil {
			return errors.Wrap(err, "counting a deleted job")
		}
	}
	return nil
}

func count(b *bbolt.Bucket, key []byte) uint64 {
	if v := b.Get(key); v != nil {
		return binary.BigEndian.Uint64(v)
	}
	return 0
}

func (t *tx) Job(tenantID string, id int64) (*store.Job, error) {
	j, err := getOwned(t.bucket(bucketJobs), id, tenantID, func(r *store.Job) string { return r.TenantID })
	if err != nil {
		return nil, err
	}
	if err := get(t.bucket(bucketJobItems), idKey(id), &j.Items); err != nil {
		return nil, err
	}
	return j, nil
}

func (t *tx) Jobs(tenantID string, f store.JobFilter, skip, take int) ([]connect.ImportJobSummary, int, error) {
	prefix := jobFilterKey(tenantID, f)
	total := int(count(t.bucket(bucketJobCounts), prefix))
	jobs := make([]connect.ImportJobSummary, 0, min(take, total))
	seen := 0
	err := scan(t.bucket(bucketJobIndex), prefix, func(k, _ []byte) (bool, error) {
		if seen++; seen <= skip {
			return true, nil
		}
		var j store.Job
		if err := get(t.bucket(bucketJobs), idKey(idFromDesc(k[len(prefix):])), &j); err != nil {
			return false, err
		}
		jobs = append(jobs, j.ImportJobSummary)
		return len(jobs) < take, nil
	})
	return jobs, total, err
}

// --- idempotency

func idempotencyKey(k store.IdempotencyKey) []byte { return tuple(k.TenantID, k.ClientID, k.Key) }

// expiryKey lists a record under its expiry, so expired records come first.
func expiryKey(at time.Time, key []byte) []byte {
	return append(u64(uint64(at.UnixNano())), key...)
}

func (t *tx) IdempotencyRecord(key store.IdempotencyKey) (*store.IdempotencyRecord, error) {
	var r store.IdempotencyRecord
	if err := get(t.bucket(bucketIdempotency), idempotencyKey(key), &r); err != nil {
		return nil, err
	}
	var err error
	r.Result, err = inflate(r.Result)
	return &r, err
}

func (t *tx) PutIdempotencyRecord(r *store.IdempotencyRecord) error {
	key := idempotencyKey(r.Key)
	records, expiries := t.bucket(bucketIdempotency), t.bucket(bucketIdempotencyAt)
	if old, err := t.IdempotencyRecord(r.Key); err == nil {
		if err := expiries.Delete(expiryKey(old.Expiry(), key)); err != nil {
			return errors.Wrap(err, "unindexing an idempotency record")
		}
	}
	if err := expiries.Put(expiryKey(r.Expiry(), key), nil); err != nil {
		return errors.Wrap(err, "indexing an idempotency record")
	}
	kept := *r
	kept.Result = deflate(r.Result) // a batch's result is most of the record
	return put(records, key, &kept)
}

func (t *tx) PurgeIdempotencyRecords(now time.Time, limit int) (int, error) {
	records, expiries := t.bucket(bucketIdempotency), t.bucket(bucketIdempotencyAt)
	end := u64(uint64(now.UnixNano()))
	var expired [][]byte
	c := expiries.Cursor()
	for k, _ := c.First(); k != nil && len(expired) < limit && bytes.Compare(k[:8], end) <= 0; k, _ = c.Next() {
		expired = append(expired, bytes.Clone(k))
	}
	for _, k := range expired {
		if err := records.Delete(k[8:]); err != nil {
			return 0, errors.Wrap(err, "purging an idempotency record")
		}
		if err := expiries.Delete(k); err != nil {
			return 0, errors.Wrap(err, "purging an idempotency record")
		}
	}
	return len(expired), nil
}

// scan calls fn for every key starting with prefix, in key order, until fn
// returns false or an error.
func scan(b *bbolt.Bucket, prefix []byte, fn func(k, v []byte) (bool, error)) error {
	c := b.Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		more, err := fn(k, v)
		if err != nil || !more {
			return err
		}
	}
	return nil
}
