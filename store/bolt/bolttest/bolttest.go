// Package bolttest opens bbolt stores for tests: a real file in the test's
// temporary directory (no mocks), checked for consistency and closed when the
// test ends.
package bolttest

import (
	"testing"

	"github.com/integration-connect/connect/store/bolt"
)

// Open opens a new store in tb.TempDir(). When the test ends, the database
// file is checked (a broken page or freelist fails the test) and closed.
func Open(tb testing.TB) *bolt.Store {
	tb.Helper()
	return OpenWith(tb, nil)
}

// OpenWith is Open with bbolt options.
func OpenWith(tb testing.TB, opts *bolt.Options) *bolt.Store {
	tb.Helper()
	s, err := bolt.OpenDir(tb.TempDir(), opts)
	if err != nil {
		tb.Fatalf("opening a test store: %v", err)
	}
	tb.Cleanup(func() {
		if err := s.Check(); err != nil {
			tb.Errorf("database check: %v", err)
		}
		if err := s.Close(); err != nil {
			tb.Errorf("closing the test store: %v", err)
		}
	})
	return s
}
