package bolt_test

import (
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"path/filepath"
	"strings"
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
		if got := btx.Bucket([]byte("meta")).Get([]byte("schema")); string(got) != string(u64(4)) {
			t.Errorf("schema = %x, want 4", got)
		}
	})
}

// TestOpenReadsPlainValuesOfSchema2: schema 2 kept job items and idempotency
// results as plain JSON, however large; schema 3 deflates large ones, and
// still reads the plain ones as they are.
func TestOpenReadsPlainValuesOfSchema2(t *testing.T) {
	path := filepath.Join(t.TempDir(), bolt.FileName)
	var items []string
	for i := range 20 {
		items = append(items, fmt.Sprintf(`{"externalId":"T%d","status":"Imported","targetId":%d}`, i, i+1))
	}
	result := `{"importJobId":1,"items":[` + strings.Join(items, ",") + `]}`
	writeRaw(t, path, map[string]map[string][]byte{
		"meta":      {"schema": u64(2)},
		"jobs":      {string(u64(1)): []byte(`{"tenantId":"t1","clientId":"c1","id":1,"status":"Accepted","totalItems":20,"createdItems":20,"items":[]}`)},
		"job_items": {string(u64(1)): []byte("[" + strings.Join(items, ",") + "]")},
		"idempotency": {"\x02t1\x02c1\x01k": []byte(`{"key":{"tenantId":"t1","clientId":"c1","key":"k"},"fingerprint":"ZjE=",` +
			`"createdAt":"2026-11-21T08:00:00Z","expiresAt":"2026-11-22T08:00:00Z","result":"` + base64.StdEncoding.EncodeToString([]byte(result)) + `"}`)},
	})
	s, err := bolt.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	err = s.View(t.Context(), func(tx store.Tx) error {
		j, err := tx.Job("t1", 1)
		if err != nil || len(j.Items) != 20 || j.Items[19].ExternalID != "T19" {
			t.Errorf("job of schema 2 = %+v, %v", j, err)
		}
		r, err := tx.IdempotencyRecord(store.IdempotencyKey{TenantID: "t1", ClientID: "c1", Key: "k"})
		if err != nil || string(r.Result) != result {
			t.Errorf("idempotency record of schema 2 = %+v, %v", r, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
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
	writeRaw(t, path, map[string]map[string][]byte{"meta": {"schema": u64(5)}})
	s, err := bolt.Open(path, nil)
	if !errors.Is(err, bolt.ErrNewerSchema) {
		t.Errorf("Open of a schema 5 file: %v, want ErrNewerSchema", err)
	}
	if err == nil {
		_ = s.Close()
	}
}

// TestOpenIndexesEventsOfSchema3: schema 3 kept events by number only. Open
// indexes the kept events by id, so the events feed finds them.
func TestOpenIndexesEventsOfSchema3(t *testing.T) {
	path := filepath.Join(t.TempDir(), bolt.FileName)
	writeRaw(t, path, map[string]map[string][]byte{
		"meta":        {"schema": u64(3)},
		"events":      {string(u64(7)): []byte(`{"seq":7,"id":"evt_old","tenantId":"t1","kind":"import_job.completed","createdAt":"2026-11-21T08:00:00Z","data":{"n":1}}`)},
		"event_index": {"\x02t1\x14import_job.completed" + string(u64(7)): nil},
	})
	s, err := bolt.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	err = s.View(t.Context(), func(tx store.Tx) error {
		e, err := tx.EventByID("t1", "evt_old")
		if err != nil || e.Seq != 7 || string(e.Data) != `{"n":1}` {
			t.Errorf("EventByID after the migration = %+v, %v", e, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
