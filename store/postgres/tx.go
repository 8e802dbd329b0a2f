package postgres

import (
	"context"
	"encoding/binary"
	"hash/fnv"
	"sync"
	"time"

	"github.com/cockroachdb/errors"
	"github.com/go-json-experiment/json"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/store"
)

// tx implements store.Tx on one PostgreSQL transaction. Every statement goes
// through roundTrip, which sends it in one pipelined batch behind what must
// come first: the transaction's BEGIN, which never takes a round trip of its
// own, and the writes buffered so far (targets, jobs, idempotency records:
// see pending). The last batch carries the events and the COMMIT. So a
// transaction costs one round trip per read it waits for, plus one.
type tx struct {
	ctx  context.Context
	s    *Store
	conn *pgxpool.Conn
	// begin is how the transaction begins; ptx is nil until its BEGIN was
	// sent (with its first statement), and committed is set by its COMMIT.
	begin     pgx.TxOptions
	ptx       pgx.Tx
	committed bool
	write     bool
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
	// targets remembers the records of target identities this transaction
	// looked up or wrote (nil: known not to exist), so the importer's lookups
	// of a batch cost one statement. Rows read in Update are locked, so they
	// stay valid.
	targets   map[targetIdentity]*targetRecord
	targetIDs map[int64]targetIdentity
	// jobID is the id of the job this transaction will create, taken from
	// jobs_id_seq with the lookup of targets that starts every import (see
	// TargetsByExternalID); 0 when none was taken.
	jobID int64
	// planning is the planner setting in effect (see plans.go).
	planning planning
}

var _ store.Tx = (*tx)(nil)

func newTx(ctx context.Context, s *Store, conn *pgxpool.Conn, begin pgx.TxOptions) *tx {
	return &tx{ctx: ctx, s: s, conn: conn, begin: begin, write: begin.AccessMode != pgx.ReadOnly,
		slot: counterSlot(conn), targets: map[targetIdentity]*targetRecord{}, targetIDs: map[int64]targetIdentity{}}
}

// run runs fn, commits what it did and ends the transaction (also when fn
// panics).
func (t *tx) run(fn func(store.Tx) error) error {
	defer t.end()
	err := fn(t)
	if t.conflict != nil {
		// The transaction failed on a race; whatever fn made of that error,
		// running it again is the answer.
		return t.conflict
	}
	if err != nil {
		return err
	}
	return t.commit()
}

// roundTrip sends b's statements to the database in one pipelined batch,
// behind the transaction's BEGIN when it has not been sent yet and the
// writes buffered so far, and waits for all of it (b's callbacks run in
// order). Many new targets go first by COPY, which takes a round trip of its
// own.
func (t *tx) roundTrip(b *pgx.Batch) error {
	return t.roundTripPlanned(b, planDefault)
}

// roundTripPlanned is roundTrip for statements that need planning p.
func (t *tx) roundTripPlanned(b *pgx.Batch, p planning) error {
	if err := t.copyTargets(); err != nil {
		return err
	}
	all := t.newBatch()
	if err := t.queuePending(all, false); err != nil {
		return err
	}
	t.plan(all, p)
	all.QueuedQueries = append(all.QueuedQueries, b.QueuedQueries...)
	return t.send(all)
}

// newBatch is an empty batch, which begins the transaction when it has not
// begun yet (pgx's Batch.BeginTx: the BEGIN saves its own round trip).
func (t *tx) newBatch() *pgx.Batch {
	b := &pgx.Batch{}
	if t.ptx == nil {
		b.BeginTx(t.begin)
	}
	return b
}

// send sends a batch made by newBatch and waits for all of it.
func (t *tx) send(b *pgx.Batch) error {
	if b.Len() == 0 {
		return nil
	}
	br := t.conn.SendBatch(t.ctx, b)
	if t.ptx == nil {
		t.ptx = br.Tx()
	}
	return t.note(errors.WithStack(br.Close()))
}

// end rolls back a transaction that did not commit and gives its connection
// back to the pool. The rollback runs even when the caller's context is done;
// a connection left inside a transaction is closed by the pool, not reused.
func (t *tx) end() {
	if t.ptx != nil && !t.committed {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_ = t.ptx.Rollback(ctx)
		cancel()
	}
	t.conn.Release()
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

// exec runs a statement (see roundTrip).
func (t *tx) exec(sql string, args ...any) (pgconn.CommandTag, error) {
	var tag pgconn.CommandTag
	b := &pgx.Batch{}
	b.Queue(sql, args...).Exec(func(ct pgconn.CommandTag) error { tag = ct; return nil })
	return tag, t.roundTrip(b)
}

// read runs a query and hands its rows to fn (see roundTrip).
func (t *tx) read(fn func(pgx.Rows) error, sql string, args ...any) error {
	b := &pgx.Batch{}
	b.Queue(sql, args...).Query(fn)
	return t.roundTrip(b)
}

// scan reads the first row a query returns into dest; found is false when
// it returns none. (No row is not an error of the batch: pgx forgets the
// prepared statements of a batch that failed.)
func (t *tx) scan(sql string, args []any, dest ...any) (found bool, err error) {
	err = t.read(func(rows pgx.Rows) error {
		if found = rows.Next(); found {
			return rows.Scan(dest...)
		}
		return nil
	}, sql, args...)
	return found, err
}

// lockKeys takes transaction-level advisory locks on keys (in Update only),
// so that lookups of a key that may find nothing serialize with whoever
// creates it. Like a buffered write, the locks go with the transaction's
// next statement, in front of it: the lookup they guard costs no round trip
// more.
func (t *tx) lockKeys(keys ...int64) {
	if t.write {
		t.pending.locks = append(t.pending.locks, keys...)
	}
}

// lockShared is lockKeys with shared locks: holders of one key's shared
// lock run side by side and exclude whoever takes it with lockKeys.
func (t *tx) lockShared(keys ...int64) {
	if t.write {
		t.pending.sharedLocks = append(t.pending.sharedLocks, keys...)
	}
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
	if found, err := t.scan(sql, args, &data); err != nil || !found {
		return nil, notFound(found, err)
	}
	var v T
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, errors.Wrap(err, "decoding a record")
	}
	return &v, nil
}

// notFound is err, or connect.ErrNotFound when a read found nothing.
func notFound(found bool, err error) error {
	if err == nil && !found {
		return connect.ErrNotFound
	}
	return err
}

// each decodes the doc of every row sql returns, in order, and calls fn with
// it, one row at a time; it stops at fn's first error.
func each[T any](t *tx, fn func(*T) error, sql string, args ...any) error {
	return t.read(func(rows pgx.Rows) error {
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
		return nil
	}, sql, args...)
}

// all decodes the docs of every row sql returns, in order.
func all[T any](t *tx, sql string, args ...any) ([]T, error) {
	var list []T
	err := each(t, func(v *T) error { list = append(list, *v); return nil }, sql, args...)
	return list, err
}

// exists reports whether sql returns a row.
func (t *tx) exists(sql string, args ...any) (found bool, err error) {
	err = t.read(func(rows pgx.Rows) error { found = rows.Next(); return nil }, sql, args...)
	return found, err
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
	_, err := t.scan("SELECT nextval($1::regclass)", []any{sequence}, &id)
	return id, errors.Wrapf(err, "allocating an id from %s", sequence)
}

// commit sends the buffered writes, the events and the COMMIT in one batch.
// A transaction that never sent a statement has nothing to commit.
func (t *tx) commit() error {
	if err := t.copyTargets(); err != nil {
		return err
	}
	b := t.newBatch()
	if err := t.queuePending(b, true); err != nil {
		return err
	}
	if t.ptx == nil && b.Len() == 1 {
		return nil // only the BEGIN
	}
	b.Queue("COMMIT").Exec(func(tag pgconn.CommandTag) error {
		// COMMIT of a transaction that failed answers ROLLBACK, no error.
		if tag.String() != "COMMIT" {
			return errors.WithStack(pgx.ErrTxCommitRollback)
		}
		t.committed = true
		return nil
	})
	return errors.Wrap(t.send(b), "committing")
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
