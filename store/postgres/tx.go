package postgres

import (
	"context"
	"encoding/binary"
	"hash/fnv"
	"slices"
	"sync"

	"github.com/cockroachdb/errors"
	"github.com/go-json-experiment/json"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/store"
)

// tx implements store.Tx on one PostgreSQL transaction. Writes of targets,
// jobs and events are buffered (see pending) and sent as set-based statements
// before the next read and at commit.
type tx struct {
	ctx   context.Context
	s     *Store
	ptx   pgx.Tx
	write bool
	// conflict is the first serialization failure, deadlock or unique
	// violation the transaction met: Update then runs fn again.
	conflict error
	pending  pending
	// slot is the row of striped counters this transaction adds to.
	slot int16
	// events are inserted at commit and numbered after it (see outbox.go);
	// pendingIDs are their rows.
	events     []*store.Event
	pendingIDs []int64
	// targets remembers the records (docs) of target identities this
	// transaction looked up or wrote (nil: known not to exist), so the
	// importer's lookups of a batch cost one statement. Rows read in Update
	// are locked, so they stay valid.
	targets   map[targetIdentity][]byte
	targetIDs map[int64]targetIdentity
}

var _ store.Tx = (*tx)(nil)

func newTx(ctx context.Context, s *Store, ptx pgx.Tx, write bool) *tx {
	return &tx{ctx: ctx, s: s, ptx: ptx, write: write, slot: counterSlot(), targets: map[targetIdentity][]byte{}, targetIDs: map[int64]targetIdentity{}}
}

// forUpdate is the locking clause of point reads: in Update a record read
// stays as read until commit.
func (t *tx) forUpdate() string {
	if t.write {
		return " FOR UPDATE"
	}
	return ""
}

// forShare is forUpdate for a record many writers read and few change.
func (t *tx) forShare() string {
	if t.write {
		return " FOR SHARE"
	}
	return ""
}

// note records a conflict so that Update retries, and returns err.
func (t *tx) note(err error) error {
	if err != nil && t.conflict == nil && retryable(err) {
		t.conflict = err
	}
	return err
}

// exec runs a statement after sending the buffered writes.
func (t *tx) exec(sql string, args ...any) (pgconn.CommandTag, error) {
	if err := t.flush(); err != nil {
		return pgconn.CommandTag{}, err
	}
	tag, err := t.ptx.Exec(t.ctx, sql, args...)
	return tag, t.note(errors.WithStack(err))
}

// query runs a query after sending the buffered writes.
func (t *tx) query(sql string, args ...any) (pgx.Rows, error) {
	if err := t.flush(); err != nil {
		return nil, err
	}
	rows, err := t.ptx.Query(t.ctx, sql, args...)
	return rows, t.note(errors.WithStack(err))
}

// lockKeys takes transaction-level advisory locks on keys (in Update only),
// so that lookups of a key that may find nothing serialize with whoever
// creates it. Locks are taken in order, so they cannot deadlock each other.
func (t *tx) lockKeys(keys ...int64) error {
	if !t.write {
		return nil
	}
	slices.Sort(keys)
	_, err := t.exec(`SELECT pg_advisory_xact_lock(k) FROM unnest($1::bigint[]) k ORDER BY k`, keys)
	return err
}

// lockKey is the advisory lock number of a key made of kind and parts: a
// 64-bit FNV-1a hash of their lengths and bytes. Two keys sharing a number
// only wait for each other needlessly.
func lockKey(kind string, parts ...string) int64 {
	h := fnv.New64a()
	for _, p := range append([]string{kind}, parts...) {
		_, _ = h.Write(binary.AppendUvarint(nil, uint64(len(p))))
		_, _ = h.Write([]byte(p))
	}
	return int64(h.Sum64())
}

// one decodes the doc of the single row sql returns, or answers
// connect.ErrNotFound.
func one[T any](t *tx, sql string, args ...any) (*T, error) {
	var data []byte
	if err := t.flush(); err != nil {
		return nil, err
	}
	err := t.ptx.QueryRow(t.ctx, sql, args...).Scan(&data)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, connect.ErrNotFound
	}
	if err != nil {
		return nil, t.note(errors.WithStack(err))
	}
	var v T
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, errors.Wrap(err, "decoding a record")
	}
	return &v, nil
}

// each decodes the doc of every row sql returns, in order, and calls fn with
// it, one row at a time; it stops at fn's first error.
func each[T any](t *tx, fn func(*T) error, sql string, args ...any) error {
	rows, err := t.query(sql, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var data []byte
		if err := rows.Scan(&data); err != nil {
			return errors.WithStack(err)
		}
		var v T
		if err := json.Unmarshal(data, &v); err != nil {
			return errors.Wrap(err, "decoding a record")
		}
		if err := fn(&v); err != nil {
			return err
		}
	}
	return t.note(errors.WithStack(rows.Err()))
}

// all decodes the docs of every row sql returns, in order.
func all[T any](t *tx, sql string, args ...any) ([]T, error) {
	rows, err := t.query(sql, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var list []T
	for rows.Next() {
		var data []byte
		if err := rows.Scan(&data); err != nil {
			return nil, errors.WithStack(err)
		}
		var v T
		if err := json.Unmarshal(data, &v); err != nil {
			return nil, errors.Wrap(err, "decoding a record")
		}
		list = append(list, v)
	}
	return list, t.note(errors.WithStack(rows.Err()))
}

// exists reports whether sql returns a row.
func (t *tx) exists(sql string, args ...any) (bool, error) {
	rows, err := t.query(sql, args...)
	if err != nil {
		return false, err
	}
	defer rows.Close()
	found := rows.Next()
	rows.Close()
	return found, t.note(errors.WithStack(rows.Err()))
}

// encode is a record as stored: JSON exactly as the bolt store writes it.
func encode(v any, opts ...json.Options) ([]byte, error) {
	data, err := json.Marshal(v, opts...)
	return data, errors.Wrap(err, "encoding a record")
}

// compact leaves out zero fields of the records written most (targets and
// job items), as the bolt store does; only for records decoded into a zero
// value.
var compact = json.OmitZeroStructFields(true)

// nextID returns the next value of a sequence.
func (t *tx) nextID(sequence string) (int64, error) {
	var id int64
	err := t.ptx.QueryRow(t.ctx, "SELECT nextval($1::regclass)", sequence).Scan(&id)
	return id, t.note(errors.Wrapf(err, "allocating an id from %s", sequence))
}

// commit sends the buffered writes and the events in one batch, then
// commits.
func (t *tx) commit() error {
	if err := t.copyTargets(); err != nil {
		return err
	}
	b := &pgx.Batch{}
	t.queuePending(b)
	if err := t.queueEvents(b); err != nil {
		return err
	}
	if err := t.send(b); err != nil {
		return err
	}
	return t.note(errors.Wrap(t.ptx.Commit(t.ctx), "committing"))
}

// idBlock hands out ids from blocks of size reserved with one nextval of
// sequence (whose INCREMENT BY is size), so that most ids cost no round
// trip. Ids of one Store increase; ids of Stores on one database interleave
// by block. nextval is not transactional: a block reserved by a transaction
// that rolls back is never handed out again by the database.
type idBlock struct {
	sequence  string
	size      int64
	mu        sync.Mutex
	have, end int64
}

// take returns the next id, reserving a block through t when none is left.
func (b *idBlock) take(t *tx) (int64, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.have == b.end {
		start, err := t.nextID(b.sequence)
		if err != nil {
			return 0, err
		}
		b.have, b.end = start, start+b.size
	}
	id := b.have
	b.have++
	return id, nil
}
