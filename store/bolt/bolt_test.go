package bolt_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/cockroachdb/errors"

	"github.com/integration-connect/connect/store"
	"github.com/integration-connect/connect/store/bolt"
	"github.com/integration-connect/connect/store/storetest"
)

// open makes a new data directory and returns the function that opens the
// bolt store in it; the store's Close first checks the consistency of the
// database file.
func open(t testing.TB) func() store.Store {
	dir := t.TempDir()
	return func() store.Store {
		t.Helper()
		s, err := bolt.OpenDir(dir, nil)
		if err != nil {
			t.Fatalf("OpenDir: %v", err)
		}
		return checked{Store: s, t: t}
	}
}

type checked struct {
	*bolt.Store
	t testing.TB
}

func (c checked) Close() error {
	if err := c.Check(); err != nil {
		c.t.Errorf("database check: %v", err)
	}
	return c.Store.Close()
}

func TestConformance(t *testing.T) {
	storetest.Run(t, open)
}

func TestSecondOpenFailsWithErrLocked(t *testing.T) {
	dir := t.TempDir()
	first, err := bolt.OpenDir(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	_, err = bolt.Open(filepath.Join(dir, bolt.FileName), &bolt.Options{LockTimeout: 100 * time.Millisecond})
	if !errors.Is(err, bolt.ErrLocked) {
		t.Fatalf("second open: got %v, want ErrLocked", err)
	}
}

func TestUseAfterClose(t *testing.T) {
	s, err := bolt.OpenDir(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	err = s.Update(t.Context(), func(store.Tx) error { return nil })
	if !errors.Is(err, bolt.ErrClosed) {
		t.Errorf("Update after Close: got %v, want ErrClosed", err)
	}
}
