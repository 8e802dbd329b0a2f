// Package postgres implements store.Store on PostgreSQL 14 or newer (pgx v5),
// so that any number of connectd processes can serve one database as one
// service. (CockroachDB and YugabyteDB speak the protocol but are not tested.)
//
// # Connecting
//
// Open takes a PostgreSQL URL, such as
//
//	postgres://connect:secret@db.example.com:5432/connect?sslmode=verify-full
//	postgres://postgres@/connect?host=/run/postgresql (a unix socket directory)
//
// or any other form pgx accepts (pool_max_conns and the other pgxpool
// parameters included; Options.MaxConns wins over pool_max_conns). Open
// applies the schema migrations embedded in this package first
// (migrations/*.sql, jackc/tern, version in the table connect_schema_version).
// tern holds an advisory lock while it migrates, so replicas that start
// together migrate once, and a binary refuses a schema newer than it knows.
// Migrate applies them without opening a store (connectd migrate). The
// database's search_path decides the schema the tables live in.
//
// # Records
//
// Every record is one row: the columns the contract looks it up, orders or
// filters by, and the record itself as json, encoded exactly as store/bolt
// encodes it. json, never jsonb, so payloads (event data, idempotent results,
// appointment metadata) come back byte for byte. Text keys use COLLATE "C":
// lists ordered by a string are in byte order, as the contract says,
// whatever the database's locale. Strings stored in key columns cannot
// contain NUL characters (PostgreSQL text cannot hold them); such a write
// fails with an internal error instead of being stored.
//
// # Isolation
//
// View runs in a REPEATABLE READ, READ ONLY transaction: one consistent
// snapshot. Update runs in READ COMMITTED with explicit locks wherever a read
// decides a write:
//   - every point read by key or id (Target, TargetByExternalID,
//     TargetsByExternalID, Client, Customer*, Location*, Contact*, Job,
//     IdempotencyRecord, Subscription, AppointmentRequest, Profile, Employee,
//     RouteSuggestion) reads with FOR UPDATE, so the record cannot change
//     under the transaction until it commits;
//   - lookups that may find nothing and are then followed by a create
//     (IdempotencyRecord, CustomerByExternalID, CustomersByNumber,
//     LocationByExternalID, LocationsByAddress, ContactByExternalID,
//     ContactsByEmail) first take a transaction-level advisory lock on what
//     they look up, so two transactions cannot both find nothing and both
//     create;
//   - MappingSettings, which every import with customer data reads, takes its
//     advisory lock and row lock shared and PutMappingSettings takes the
//     advisory lock exclusively: imports of a tenant run side by side, and a
//     change of the settings waits for them (two concurrent changes deadlock,
//     and one runs again);
//   - target identities are not advisory-locked (a batch has up to 1,000):
//     two imports creating the same new target collide on its unique index,
//     and the loser runs again.
//
// Update retries its function in a new transaction, up to 10 times with
// jittered exponential backoff (2ms to 200ms), when the transaction meets a
// serialization failure (40001), a deadlock (40P01) or a unique violation
// (23505, a concurrent create of the same key), whatever fn made of the error:
// fn may run more than once and must not have effects outside the
// transaction. Uniqueness is still checked before writing, so the contract's
// errors (TargetAlreadyExists, InvalidRequest) are the same as bolt's; a 23505
// comes only from races and reaches the caller only when the retries run out.
// Context errors are returned as they are, never retried.
//
// # Round trips
//
// A transaction never spends a round trip on BEGIN or COMMIT: its BEGIN is
// sent in one pipelined batch with its first statement (pgx's
// Batch.BeginTx), its COMMIT in the batch of its last writes. Advisory locks
// and target, job and idempotency record writes are buffered in the
// transaction and sent as set-based statements (COPY for 100 new targets or
// more, else INSERT ... SELECT FROM unnest; UPDATE ... FROM unnest) in front
// of the next read, or with the COMMIT. A target is encoded when it is sent,
// not when it is written: COPY encodes each row as it streams, while the
// database takes in the rows before it. Targets found by TargetsByExternalID
// (and created or updated) are remembered by the transaction, so an import
// of a batch makes a fixed number of round trips whatever its size: a single
// import makes 3 (its lookup, with the BEGIN and the job's id; its writes
// with the COMMIT; the shared numbering pass). Target ids come from a
// sequence in blocks of 1000 handed out in memory; jobs, subscriptions and
// the other records take their ids from sequences one by one, so job ids
// increase across replicas (a write's lookup of targets takes the id of the
// job it will create in the same round trip). The totals of job lists and
// customer lists are counters striped over 64 rows (each connection adds to
// a row of its own, dealt in turn across replicas when it connects), so that
// concurrent imports of one tenant do not queue for one row lock, and a
// list's total costs the same at 1,000 jobs as at 100,000.
//
// # Plans
//
// Connections start with kept plans and table scans off (plans.go): the
// import's lookup of targets is one index probe per key, planned once per
// connection, so it costs what its keys cost whatever the table holds, and
// the buffered writes (rows from unnest, one plan whatever the data) are
// not planned again at every execution. A transaction sends one set_config
// statement, in the same batch, in front of a read that needs PostgreSQL's
// own planning, and in front of the targets' UPDATE. A single import sends
// 8 statements, none of them a setting: BEGIN, the job's id and the lookup;
// the inserts of its target, job, list totals and event, and COMMIT.
//
// # Outbox order
//
// Events appended in a transaction are inserted with its last batch but
// without a number, which readers of events do not see (and which the
// indexes that read events by number, kind, id and age leave out). Right
// after the commit, Update waits for a numbering pass: a short transaction
// that takes an advisory lock and numbers, from a sequence, every committed
// event still without a number. A replica runs one pass at a time, shared by every
// writer that committed before it started, and the pass also reads the
// numbers of those writers' events that another replica's pass gave.
// Passes take turns and see only committed events, so numbers follow
// commit order: a reader that has seen event n never later finds an event
// below n. The pass commits asynchronously (without waiting for the WAL
// flush): losing it in a crash loses nothing that depended on it, since any
// later durable commit flushes it first, and its events are numbered again.
// So the lock is never held across a disk flush, and writers' own commits
// still share their flushes. A writer that dies between its commit and its
// pass leaves its events to the next pass of any writer, or of PruneEvents.
// Options.UnorderedEvents numbers at insert instead, to measure the cost.
//
// # Work across processes
//
// Claim is a session advisory lock on a connection each Store keeps for its
// claims: the database frees it when that connection ends, at once when the
// process dies (see sessionClaims). Background deletions
// (PurgeIdempotencyRecords, PruneEvents) pick their rows with
// FOR UPDATE SKIP LOCKED, so replicas running them at once never wait for
// each other. RateLimiter is a GCRA bucket shared by all replicas, one
// function call (one round trip) per request.
//
// # Pool
//
// Each transaction holds one connection of the pool for its duration;
// Options.MaxConns sizes the pool (pgxpool's default is the larger of 4 and
// the number of CPUs). Replicas times MaxConns must stay below the server's
// max_connections.
package postgres

import (
	"context"
	"embed"
	"io/fs"
	"log/slog"
	mrand "math/rand/v2"
	"sync"
	"time"

	"github.com/cockroachdb/errors"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/tern/v2/migrate"

	"github.com/integration-connect/connect/store"
)

//go:embed migrations/*.sql
var migrations embed.FS

// versionTable is where tern records the schema version.
const versionTable = "connect_schema_version"

// maxAttempts is how often Update runs its function before giving up on
// serialization failures, deadlocks and unique violations.
const maxAttempts = 10

// ErrClosed means the store was used after Close.
var ErrClosed = errors.New("store is closed")

// Options configures Open. A nil *Options means the documented defaults.
type Options struct {
	// MaxConns is the size of the connection pool. Default: pgxpool's
	// default, the larger of 4 and the number of CPUs.
	MaxConns int32
	// Logger receives retries and other events worth a line. Default
	// slog.Default().
	Logger *slog.Logger
	// UnorderedEvents numbers events when they are inserted instead of after
	// their commit, so numbers no longer follow commit order and a
	// subscription can skip an event. It exists to measure what the order
	// costs; do not use it otherwise.
	UnorderedEvents bool
	// Tracer, when set, sees every query, batch and COPY of the store's
	// pool (pgx's tracer interfaces): tests count round trips with it.
	Tracer pgx.QueryTracer
	// ExistingOnly refuses a database without the schema (ErrNoSchema)
	// instead of creating it, so a mistyped URL cannot set up a new store;
	// an existing schema is still brought up to date. Admin commands open
	// the store this way; serve and migrate create it.
	ExistingOnly bool
}

// ErrNoSchema means the database has no Integration Connect schema yet and
// Options.ExistingOnly forbade creating it.
var ErrNoSchema = errors.New("the database has no Integration Connect schema")

// Store is a store.Store on a PostgreSQL database.
type Store struct {
	pool      *pgxpool.Pool
	log       *slog.Logger
	opts      Options
	targetIDs idBlock
	claims    *sessionClaims
	numbering numbering

	mu     sync.RWMutex
	closed bool
}

var _ store.Store = (*Store)(nil)

// Open connects to the database at url, applies pending migrations and
// returns the store.
func Open(ctx context.Context, url string, opts *Options) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, errors.Wrap(err, "parsing the database URL")
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.MaxConns > 0 {
		cfg.MaxConns = o.MaxConns
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if err := migrateConfig(ctx, cfg.ConnConfig, o.ExistingOnly); err != nil {
		return nil, err
	}
	if o.Tracer != nil {
		cfg.ConnConfig.Tracer = o.Tracer
	}
	startPlanning(cfg.ConnConfig.RuntimeParams)
	dealCounterSlots(cfg)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, errors.Wrap(err, "connecting to the database")
	}
	// targets_id_seq increments by 1000 (see the migrations).
	s := &Store{pool: pool, log: o.Logger, opts: o, targetIDs: idBlock{sequence: "targets_id_seq", size: 1000},
		claims: &sessionClaims{cfg: cfg.ConnConfig.Copy(), log: o.Logger}}
	s.numbering.changed = sync.NewCond(&s.numbering.mu)
	s.numbering.numbered = map[uint64]map[int64]int64{}
	return s, nil
}

// Migrate applies the pending schema migrations to the database at url.
func Migrate(ctx context.Context, url string) error {
	// pgxpool's parser also accepts (and drops) the pool's own parameters.
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return errors.Wrap(err, "parsing the database URL")
	}
	return migrateConfig(ctx, cfg.ConnConfig, false)
}

// migrateConfig brings the schema up to date; existingOnly refuses to create
// it in a database that has none.
func migrateConfig(ctx context.Context, cfg *pgx.ConnConfig, existingOnly bool) error {
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return errors.Wrap(err, "connecting to the database")
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if existingOnly {
		var exists bool
		if err := conn.QueryRow(ctx, "SELECT to_regclass($1) IS NOT NULL", versionTable).Scan(&exists); err != nil {
			return errors.Wrap(err, "looking for the schema")
		}
		if !exists {
			return errors.WithStack(ErrNoSchema)
		}
	}
	m, err := migrate.NewMigrator(ctx, conn, versionTable)
	if err != nil {
		return errors.Wrap(err, "preparing migrations")
	}
	files, err := fs.Sub(migrations, "migrations")
	if err != nil {
		return errors.WithStack(err)
	}
	if err := m.LoadMigrations(files); err != nil {
		return errors.Wrap(err, "loading migrations")
	}
	return errors.Wrap(m.Migrate(ctx), "migrating the database schema")
}

// SchemaVersion returns the version of the database's schema and the version
// this package's migrations bring it to.
func (s *Store) SchemaVersion(ctx context.Context) (current, latest int, err error) {
	err = s.pool.QueryRow(ctx, "SELECT version FROM "+versionTable).Scan(&current)
	if err != nil {
		return 0, 0, errors.Wrap(err, "reading the schema version")
	}
	files, err := fs.Glob(migrations, "migrations/*.sql")
	return current, len(files), errors.WithStack(err)
}

// Ping reports whether the database answers (for readiness checks).
func (s *Store) Ping(ctx context.Context) error {
	return errors.Wrap(s.pool.Ping(ctx), "pinging the database")
}

// View implements store.Store.
func (s *Store) View(ctx context.Context, fn func(store.Tx) error) error {
	if err := s.usable(ctx); err != nil {
		return err
	}
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return unavailable(errors.Wrap(err, "beginning a read transaction"))
	}
	t := newTx(ctx, s, conn, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	defer t.end()
	return unavailable(fn(t))
}

// Update implements store.Store. See the package documentation for the
// isolation it gets and the failures it retries.
func (s *Store) Update(ctx context.Context, fn func(store.Tx) error) error {
	if err := s.usable(ctx); err != nil {
		return err
	}
	for attempt := 1; ; attempt++ {
		err := s.updateOnce(ctx, fn)
		if err == nil || attempt == maxAttempts || !retryable(err) {
			return unavailable(err)
		}
		s.log.DebugContext(ctx, "retrying a transaction", "attempt", attempt, "error", err)
		if err := sleep(ctx, backoff(attempt)); err != nil {
			return err
		}
	}
}

func (s *Store) updateOnce(ctx context.Context, fn func(store.Tx) error) error {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return errors.Wrap(err, "beginning a transaction")
	}
	t := newTx(ctx, s, conn, pgx.TxOptions{IsoLevel: pgx.ReadCommitted})
	// The connection is back in the pool before the numbering.
	if err := t.run(fn); err != nil {
		return err
	}
	s.numberEvents(ctx, t)
	return nil
}

// usable refuses a cancelled context and a closed store.
func (s *Store) usable(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return errors.WithStack(err)
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return ErrClosed
	}
	return nil
}

// Conflict codes: the transaction lost a race and may simply run again.
const (
	codeSerializationFailure = "40001"
	codeDeadlockDetected     = "40P01"
	codeUniqueViolation      = "23505"
)

func retryable(err error) bool {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return false
	}
	switch pgErr.Code {
	case codeSerializationFailure, codeDeadlockDetected, codeUniqueViolation:
		return true
	}
	return false
}

// backoff is the wait before attempt+1: 2ms doubling per attempt, capped at
// 200ms, with full jitter so colliding transactions spread out.
func backoff(attempt int) time.Duration {
	ceiling := min(2*time.Millisecond<<(attempt-1), 200*time.Millisecond)
	return time.Duration(mrand.Int64N(int64(ceiling)) + 1)
}

func sleep(ctx context.Context, d time.Duration) error {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return errors.WithStack(ctx.Err())
	case <-timer.C:
		return nil
	}
}

// Claim implements store.Store with a session advisory lock on the store's
// claims connection (see sessionClaims): a claim is held until released,
// until ttl passes, or until this process's connection ends — when it dies,
// the claims it held are free for the other replicas within seconds.
func (s *Store) Claim(ctx context.Context, name string, ttl time.Duration) (release func(), ok bool, err error) {
	release, ok, err = s.claims.claim(ctx, name, ttl)
	return release, ok, unavailable(err)
}

// Close closes the connection pool after the running transactions ended.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.closed = true
		s.claims.close()
		s.pool.Close()
	}
	return nil
}
