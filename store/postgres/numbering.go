package postgres

import (
	"context"
	"sync"
	"time"

	"github.com/cockroachdb/errors"
	"github.com/jackc/pgx/v5"
)

// numbering runs a store's event numbering passes one at a time and shares
// each among the writers waiting for it, as a group commit shares a WAL
// flush. Every pass takes the database-wide outboxLock and numbers every
// event committed so far, of any writer of any replica; so a writer that
// committed needs only one pass that started after its commit. Before,
// every writer ran a pass of its own, and all of them queued on the lock —
// the largest wait of a single import under load. Now a replica keeps at
// most one pass running and one wanted, whatever the number of writers.
type numbering struct {
	mu       sync.Mutex
	changed  *sync.Cond
	running  bool
	started  uint64                     // passes started
	finished uint64                     // passes finished (they run one at a time)
	numbered map[uint64]map[int64]int64 // each recent pass's numbers: pending_id to seq
}

// keptPasses is how many recent passes' numbers are kept for the writers
// that waited for them.
const keptPasses = 64

// numberEvents numbers the events t committed before it returns, and sets
// their Seq. It waits for a pass that started after t's commit, running it
// when no other is; a failed pass leaves the events to the next one, of any
// writer or of PruneEvents (the write itself is committed either way).
func (s *Store) numberEvents(ctx context.Context, t *tx) {
	if len(t.pendingIDs) == 0 || s.opts.UnorderedEvents {
		return
	}
	n := &s.numbering
	n.mu.Lock()
	from, need := n.finished, n.started+1
	for n.finished < need {
		if n.running {
			n.changed.Wait()
			continue
		}
		n.running = true
		n.started++
		pass := n.started
		n.mu.Unlock()
		numbers := s.numberingPass(ctx)
		n.mu.Lock()
		n.running = false
		n.finished = pass
		n.numbered[pass] = numbers
		delete(n.numbered, pass-keptPasses)
		n.changed.Broadcast()
	}
	// The pass that numbered t's events finished after t arrived: it is one
	// of those from+1 to finished (one running then may have seen them).
	missing := t.setNumbers(n.numbered, from+1, n.finished)
	n.mu.Unlock()
	if missing {
		s.readNumbers(ctx, t) // numbered by another replica's pass
	}
}

// setNumbers sets the Seq of t's events from the numbers of passes first to
// last, and reports whether any was not among them.
func (t *tx) setNumbers(passes map[uint64]map[int64]int64, first, last uint64) (missing bool) {
	for i, id := range t.pendingIDs {
		for p := first; p <= last && t.events[i].Seq == 0; p++ {
			t.events[i].Seq = passes[p][id]
		}
		missing = missing || t.events[i].Seq == 0
	}
	return missing
}

// numberingPass numbers every event committed and not yet numbered, in the
// order they were inserted, and returns the numbers it gave. The pass
// commits asynchronously (no WAL flush while holding the lock): if the server
// crashes before its commit reaches the disk, the numbering is lost with
// everything that could have depended on it (any later durable commit
// flushes the WAL up to itself), and the events are numbered again.
func (s *Store) numberingPass(ctx context.Context) map[int64]int64 {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	numbers := map[int64]int64{}
	// One round trip: the whole transaction is one pipelined batch.
	b := &pgx.Batch{}
	b.Queue("BEGIN")
	b.Queue("SET LOCAL synchronous_commit = off")
	b.Queue("SELECT pg_advisory_xact_lock($1)", outboxLock)
	b.Queue(numberingSQL + " RETURNING e.pending_id, e.seq").Query(func(rows pgx.Rows) error {
		for rows.Next() {
			var id, seq int64
			if err := rows.Scan(&id, &seq); err != nil {
				return errors.WithStack(err)
			}
			numbers[id] = seq
		}
		return errors.WithStack(rows.Err())
	})
	b.Queue("COMMIT")
	// A connection left inside the transaction by a failure is closed, not
	// reused, by the pool.
	if err := s.pool.SendBatch(ctx, b).Close(); err != nil {
		s.log.WarnContext(ctx, "numbering events failed; the next pass numbers them", "error", err)
		return nil
	}
	return numbers
}

// readNumbers reads the numbers of t's events that another replica's pass
// gave them.
func (s *Store) readNumbers(ctx context.Context, t *tx) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	rows, err := s.pool.Query(ctx, `SELECT pending_id, seq FROM events WHERE pending_id = ANY($1) AND seq IS NOT NULL`, t.pendingIDs)
	if err != nil {
		s.log.WarnContext(ctx, "reading event numbers failed", "error", err)
		return
	}
	numbers := map[int64]int64{}
	for rows.Next() {
		var id, seq int64
		if err := rows.Scan(&id, &seq); err != nil {
			break
		}
		numbers[id] = seq
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		s.log.WarnContext(ctx, "reading event numbers failed", "error", err)
	}
	t.setNumbers(map[uint64]map[int64]int64{0: numbers}, 0, 0)
}
