// Package bolt implements store.Store on bbolt, a single-file embedded database:
// the default store of Integration Connect, needing no server.
//
// Read-write transactions are group-committed: one goroutine takes every write
// waiting at the time and runs them in a single bbolt transaction with a single
// fsync. Unlike bbolt's DB.Batch it never waits for more writers to arrive, so a
// lone write is not delayed and concurrent writes still share their commits.
package bolt

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/cockroachdb/errors"
	bbolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"

	"github.com/integration-connect/connect/store"
)

// FileName is the name of the database file inside a data directory.
const FileName = "connect.db"

// ErrLocked means another process (usually a running connectd serve) holds the
// database file.
var ErrLocked = errors.New("the data directory is in use by another process (is connectd serve running?)")

// ErrClosed means the store was used after Close.
var ErrClosed = errors.New("store is closed")

// growStep is how much the file grows by when it is full. bbolt's default,
// 16 MiB, is a sixth of a store of 100,000 targets; each step costs one
// fsync, and at 4 MiB a batch of 1,000 targets still takes one only every
// fourth commit or so.
const growStep = 4 << 20

// initialMmapSize maps the first GiB of the file from the start: a write that
// grows the file beyond what is mapped must wait for every read transaction
// to end, and a backup is one long read transaction. The mapping is address
// space only; the file still grows by growStep. On Windows mapping a file
// grows it, so there bbolt's default stays.
func initialMmapSize() int {
	if runtime.GOOS == "windows" {
		return 0
	}
	return 1 << 30
}

// Options configures Open. A nil *Options means the documented defaults.
type Options struct {
	// LockTimeout is how long Open waits for another process to release the
	// file before failing with ErrLocked. Default 2s.
	LockTimeout time.Duration
	// NoSync skips fsync on commit. Only for throwaway data: a crash can lose or
	// corrupt committed writes.
	NoSync bool
	// MaxBatch caps how many writes share one transaction. Default 1000.
	MaxBatch int
	// NoGroupCommit runs every write in its own transaction (one fsync each).
	// It exists to measure what group commit buys; do not use it otherwise.
	NoGroupCommit bool
}

// Store is a store.Store on one bbolt file.
type Store struct {
	db      *bbolt.DB
	opts    Options
	writes  chan *write
	mu      sync.RWMutex // guards closed against sends on writes
	closed  bool
	stopped chan struct{}
	claims  claimSet
}

var _ store.Store = (*Store)(nil)

// write is one Update call waiting for the committer.
type write struct {
	fn   func(*bbolt.Tx) error
	done chan error
}

// panicked carries a panic of a write's function back to its caller.
type panicked struct{ value any }

func (p panicked) Error() string { return fmt.Sprintf("panic: %v", p.value) }

// OpenDir opens (creating if needed) the store in directory dir, file FileName.
func OpenDir(dir string, opts *Options) (*Store, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, errors.Wrapf(err, "creating data directory %s", dir)
	}
	return Open(filepath.Join(dir, FileName), opts)
}

// Open opens (creating if needed) the bbolt file at path.
func Open(path string, opts *Options) (*Store, error) {
	o := withDefaults(opts)
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{Timeout: o.LockTimeout, NoSync: o.NoSync, InitialMmapSize: initialMmapSize()})
	if errors.Is(err, bolterrors.ErrTimeout) {
		return nil, errors.Wrapf(ErrLocked, "opening %s", path)
	}
	if err != nil {
		return nil, errors.Wrapf(err, "opening %s", path)
	}
	db.AllocSize = growStep
	if err := db.Update(createBuckets); err != nil {
		_ = db.Close()
		return nil, errors.Wrapf(err, "preparing %s", path)
	}
	s := &Store{db: db, opts: o, writes: make(chan *write, o.MaxBatch), stopped: make(chan struct{})}
	go s.commitLoop()
	return s, nil
}

func withDefaults(opts *Options) Options {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.LockTimeout <= 0 {
		o.LockTimeout = 2 * time.Second
	}
	if o.MaxBatch <= 0 {
		o.MaxBatch = 1000
	}
	return o
}

// View implements store.Store.
func (s *Store) View(ctx context.Context, fn func(store.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return errors.WithStack(err)
	}
	return s.db.View(func(btx *bbolt.Tx) error { return fn(&tx{btx: btx}) })
}

// Update implements store.Store.
func (s *Store) Update(ctx context.Context, fn func(store.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return errors.WithStack(err)
	}
	w := &write{fn: func(btx *bbolt.Tx) error {
		t := &tx{btx: btx}
		if err := fn(t); err != nil {
			return err
		}
		return t.flushTargets()
	}, done: make(chan error, 1)}
	if err := s.enqueue(w); err != nil {
		return err
	}
	err := <-w.done
	if p, ok := err.(panicked); ok {
		panic(p.value)
	}
	return err
}

func (s *Store) enqueue(w *write) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return ErrClosed
	}
	s.writes <- w
	return nil
}

// commitLoop is the one writer: it takes the writes waiting now and commits them
// together, then repeats.
func (s *Store) commitLoop() {
	defer close(s.stopped)
	for w := range s.writes {
		group := []*write{w}
		if !s.opts.NoGroupCommit {
			group = s.drain(group)
		}
		s.commit(group)
	}
}

// drain adds the writes already waiting, without waiting for more.
func (s *Store) drain(group []*write) []*write {
	for len(group) < s.opts.MaxBatch {
		select {
		case w, ok := <-s.writes:
			if !ok {
				return group
			}
			group = append(group, w)
		default:
			return group
		}
	}
	return group
}

// commit runs a group in one transaction. When one function fails, the
// transaction is rolled back, that function gets its error, and the others run
// again without it.
func (s *Store) commit(group []*write) {
	for len(group) > 0 {
		failed, failErr := -1, error(nil)
		err := s.db.Update(func(btx *bbolt.Tx) error {
			for i, w := range group {
				if err := call(w.fn, btx); err != nil {
					failed, failErr = i, err
					return err
				}
			}
			return nil
		})
		if failed < 0 {
			for _, w := range group {
				w.done <- errors.Wrap(err, "committing")
			}
			return
		}
		group[failed].done <- failErr
		group = append(group[:failed:failed], group[failed+1:]...)
	}
}

func call(fn func(*bbolt.Tx) error, btx *bbolt.Tx) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = panicked{value: p}
		}
	}()
	return fn(btx)
}

// Claim implements store.Store. The file lock of bbolt makes this process the
// only user of the store, so claims kept in memory are claims for every caller.
func (s *Store) Claim(ctx context.Context, name string, ttl time.Duration) (func(), bool, error) {
	if err := ctx.Err(); err != nil {
		return nil, false, errors.WithStack(err)
	}
	release, ok := s.claims.claim(name, time.Now().Add(ttl))
	return release, ok, nil
}

// Check verifies the consistency of the database file (pages, freelist).
func (s *Store) Check() error {
	return s.db.View(func(btx *bbolt.Tx) error {
		var errs error
		for err := range btx.Check() {
			errs = errors.CombineErrors(errs, err)
		}
		return errs
	})
}

// Close waits for queued writes, then closes the file.
func (s *Store) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	close(s.writes)
	s.mu.Unlock()
	<-s.stopped
	return errors.Wrap(s.db.Close(), "closing the store")
}

// claimSet holds the unexpired claims of this process.
type claimSet struct {
	mu   sync.Mutex
	held map[string]*claimHold
}

type claimHold struct{ until time.Time }

func (c *claimSet) claim(name string, until time.Time) (func(), bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if h := c.held[name]; h != nil && time.Now().Before(h.until) {
		return nil, false
	}
	if c.held == nil {
		c.held = map[string]*claimHold{}
	}
	h := &claimHold{until: until}
	c.held[name] = h
	var once sync.Once
	return func() {
		once.Do(func() {
			c.mu.Lock()
			if c.held[name] == h { // not taken over after it expired
				delete(c.held, name)
			}
			c.mu.Unlock()
		})
	}, true
}
