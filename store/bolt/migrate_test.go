package bolt_test

import (
	"encoding/binary"
	"path/filepath"
	"testing"
	"time"

	"github.com/cockroachdb/errors"
	bbolt "go.etcd.io/bbolt"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/store"
	"github.com/integration-connect/connect/store/bolt"
)

var t0 = time.Date(2026, 11, 21, 8, 0, 0, 0, time.UTC)

// writeRaw creates a bbolt file at path holding buckets as given (bucket →
// key → value), the way an older version of this package left it.
func writeRaw(t *testing.T, path string, buckets map[string]map[string][]byte) {
	t.Helper()
	db, err := bbolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.Update(func(btx *bbolt.Tx) error {
		for name, pairs := range buckets {
			b, err := btx.CreateBucket([]byte(name))
			if err != nil {
				return err
			}
			for k, v := range pairs {
				if err := b.Put([]byte(k), v); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func u64(v uint64) []byte { return binary.BigEndian.AppendUint64(nil, v) }

// TestOpenMigratesSchema1: in a file of schema 1 idempotency records have no
// expiry and are indexed by creation time. Open indexes them by expiry, 24h
// after their creation, and drops the old index.
func TestOpenMigratesSchema1(t *testing.T) {
	path := filepath.Join(t.TempDir(), bolt.FileName)
	recordKey := "\x02t1\x02c1\x01k" // tuple("t1", "c1", "k"): each part's length, then its bytes
	writeRaw(t, path, map[string]map[string][]byte{
		"meta": {"schema": u64(1)},
		"idempotency": {recordKey: []byte(`{"key":{"tenantId":"t1","clientId":"c1","key":"k"},"fingerprint":"ZjE=",` +
			`"createdAt":"2026-11-21T08:00:00Z","created":true,"result":"eyJhIjoxfQ=="}`)},
		"idempotency_by_age": {string(u64(uint64(t0.UnixNano()))) + recordKey: nil},
	})
	s, err := bolt.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	key := store.IdempotencyKey{TenantID: "t1", ClientID: "c1", Key: "k"}
	steps := []struct {
		now        time.Time
		wantPurged int
		wantErr    error
	}{
		{t0.Add(24*time.Hour - time.Nanosecond), 0, nil},
		{t0.Add(24 * time.Hour), 1, connect.ErrNotFound},
	}
	for _, st := range steps {
		var purged int
		err := s.Update(t.Context(), func(tx store.Tx) (err error) {
			purged, err = tx.PurgeIdempotencyRecords(st.now, 10)
			return err
		})
		if err != nil || purged != st.wantPurged {
			t.Errorf("purge at t0+%v: %d, %v; want %d", st.now.Sub(t0), purged, err, st.wantPurged)
		}
		err = s.View(t.Context(), func(tx store.Tx) error {
			r, err := tx.IdempotencyRecord(key)
			if err == nil && (!r.CreatedAt.Equal(t0) || !r.Created || string(r.Result) != `{"a":1}`) {
				t.Errorf("migrated record = %+v", r)
			}
			return err
		})
		if !errors.Is(err, st.wantErr) {
			t.Errorf("record after the purge at t0+%v: %v, want %v", st.now.Sub(t0), err, st.wantErr)
		}
	}
	if err := s.Check(); err != nil {
		t.Errorf("database check: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	assertRaw(t, path, func(btx *bbolt.Tx) {
		if btx.Bucket([]byte("idempotency_by_age")) != nil {
			t.Error("the index of schema 1 is still there")
		}
		if got := btx.Bucket([]byte("meta")).Get([]byte("schema")); string(got) != string(u64(2)) {
			t.Errorf("schema = %x, want 2", got)
		}
	})
}

func assertRaw(t *testing.T, path string, fn func(*bbolt.Tx)) {
	t.Helper()
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_ = db.View(func(btx *bbolt.Tx) error { fn(btx); return nil })
}

func TestOpenRefusesNewerSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), bolt.FileName)
	writeRaw(t, path, map[string]map[string][]byte{"meta": {"schema": u64(3)}})
	s, err := bolt.Open(path, nil)
	if !errors.Is(err, bolt.ErrNewerSchema) {
		t.Errorf("Open of a schema 3 file: %v, want ErrNewerSchema", err)
	}
	if err == nil {
		_ = s.Close()
	}
}
