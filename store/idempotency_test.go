package store_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/errors"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/store"
	"github.com/integration-connect/connect/store/bolt"
	"github.com/integration-connect/connect/store/bolt/bolttest"
	"github.com/integration-connect/connect/store/storetest"
)

func mustOpen(t testing.TB) *bolt.Store {
	t.Helper()
	return bolttest.Open(t)
}

var (
	caller = connect.Caller{TenantID: "t1", ClientID: "c1"}
	t0     = time.Date(2026, 11, 21, 8, 0, 0, 0, time.UTC)
)

// counter is an idempotent write that counts how often it really ran by
// creating one target per run.
type counter struct {
	s    *bolt.Store
	runs int
}

func (c *counter) write(w store.Write, result string, failWith error) (store.Outcome[string], error) {
	return runIdempotent(bgctx, c.s, w, func() (store.TxFunc[string], error) {
		if failWith != nil {
			return nil, failWith
		}
		return func(tx store.Tx) (string, bool, error) {
			target := &store.Target{TenantID: "t1", SourceSystem: "s", ExternalID: result + time.Now().String()}
			if err := tx.CreateTarget(target); err != nil {
				return "", false, err
			}
			c.runs++
			return result, true, nil
		}, nil
	})
}

// runIdempotent takes the three steps every service's write takes.
func runIdempotent[T any](ctx context.Context, s store.Store, w store.Write, prepare func() (store.TxFunc[T], error)) (store.Outcome[T], error) {
	claim, err := store.ClaimWrite[T](ctx, s, w)
	if err != nil {
		return store.Outcome[T]{}, err
	}
	defer claim.Release()
	if claim.Stored() {
		return claim.Replay()
	}
	fn, err := prepare()
	if err != nil {
		return claim.Fail(ctx, err)
	}
	return claim.Commit(ctx, fn)
}

func write(key, body string, now time.Time) store.Write {
	return store.Write{Caller: caller, Key: key, Operation: "POST /x", Body: []byte(body), Now: now, Retention: 24 * time.Hour}
}

func TestIdempotentWrite(t *testing.T) {
	c := &counter{s: mustOpen(t)}

	first, err := c.write(write("k1", `{"a":1,"b":[1,2]}`, t0), "first", nil)
	if err != nil || first.Value != "first" || !first.Created || first.Replayed {
		t.Fatalf("first call = %+v, %v", first, err)
	}
	// Same request, other key order and white space: replayed, not run.
	again, err := c.write(write("k1", `{ "b": [1, 2], "a": 1 }`, t0.Add(time.Minute)), "second", nil)
	if err != nil || again.Value != "first" || !again.Created || !again.Replayed {
		t.Errorf("replay = %+v, %v; want the first outcome replayed", again, err)
	}
	// Same key, different body.
	_, err = c.write(write("k1", `{"a":2}`, t0.Add(time.Minute)), "third", nil)
	if connect.ErrorCodeOf(err) != connect.CodeIdempotencyKeyReused {
		t.Errorf("different body: got %v, want IdempotencyKeyReused", err)
	}
	// Same key, same body, other operation.
	w := write("k1", `{"a":1,"b":[1,2]}`, t0)
	w.Operation = "POST /y"
	if _, err = c.write(w, "fourth", nil); connect.ErrorCodeOf(err) != connect.CodeIdempotencyKeyReused {
		t.Errorf("different operation: got %v, want IdempotencyKeyReused", err)
	}
	// Same key of another client is another key.
	w = write("k1", `{"a":1,"b":[1,2]}`, t0)
	w.Caller.ClientID = "c2"
	if out, err := c.write(w, "other client", nil); err != nil || out.Replayed {
		t.Errorf("other client's key: %+v, %v; want a fresh run", out, err)
	}
	// No key: runs every time.
	for range 2 {
		if out, err := c.write(write("", `{}`, t0), "keyless", nil); err != nil || out.Replayed {
			t.Errorf("keyless write: %+v, %v", out, err)
		}
	}
	if c.runs != 4 {
		t.Errorf("the write ran %d times, want 4", c.runs)
	}
}

func TestIdempotentWriteExpiry(t *testing.T) {
	c := &counter{s: mustOpen(t)}
	if _, err := c.write(write("k", `{}`, t0), "first", nil); err != nil {
		t.Fatal(err)
	}
	// After the retention time the key is free again, even for another body.
	out, err := c.write(write("k", `{"other":true}`, t0.Add(24*time.Hour)), "later", nil)
	if err != nil || out.Replayed || out.Value != "later" {
		t.Fatalf("after retention: %+v, %v; want a fresh run", out, err)
	}
	// Expired records of other keys are purged by later writes.
	if _, err := c.write(write("k2", `{}`, t0.Add(72*time.Hour)), "x", nil); err != nil {
		t.Fatal(err)
	}
	err = c.s.View(bgctx, func(tx store.Tx) error {
		_, err := tx.IdempotencyRecord(store.IdempotencyKey{TenantID: "t1", ClientID: "c1", Key: "k"})
		return err
	})
	if !errors.Is(err, connect.ErrNotFound) {
		t.Errorf("expired record still stored: %v", err)
	}
}

// TestIdempotentWriteRetentionPerWrite: each record keeps the retention of the
// write that stored it. A write with a 1h retention purges the records that
// expired, not a 48h record of the same age; and whether a stored record is
// replayed depends on its own expiry, not on the retention of the retry.
func TestIdempotentWriteRetentionPerWrite(t *testing.T) {
	c := &counter{s: mustOpen(t)}
	short, long := write("short", `{}`, t0), write("long", `{}`, t0)
	short.Retention, long.Retention = time.Hour, 48*time.Hour
	for _, w := range []store.Write{short, long} {
		if _, err := c.write(w, w.Key, nil); err != nil {
			t.Fatal(err)
		}
	}
	trigger := write("trigger", `{}`, t0.Add(2*time.Hour))
	trigger.Retention = time.Hour
	if _, err := c.write(trigger, "trigger", nil); err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]error{"short": connect.ErrNotFound, "long": nil, "trigger": nil} {
		err := c.s.View(bgctx, func(tx store.Tx) error {
			_, err := tx.IdempotencyRecord(store.IdempotencyKey{TenantID: "t1", ClientID: "c1", Key: key})
			return err
		})
		if !errors.Is(err, want) {
			t.Errorf("record %q after a 1h write purged: %v, want %v", key, err, want)
		}
	}
	tests := []struct {
		name       string
		key        string
		at         time.Time
		retention  time.Duration
		wantReplay bool
	}{
		// In time order: each write purges what expired by then.
		{"1h record, retried under a 24h retention", "trigger", t0.Add(2*time.Hour + 59*time.Minute), 24 * time.Hour, true},
		{"1h record at its expiry", "trigger", t0.Add(3 * time.Hour), 24 * time.Hour, false},
		{"48h record, retried under a 1h retention", "long", t0.Add(47 * time.Hour), time.Hour, true},
		{"48h record at its expiry", "long", t0.Add(48 * time.Hour), 72 * time.Hour, false},
	}
	for _, tc := range tests {
		w := write(tc.key, `{}`, tc.at)
		w.Retention = tc.retention
		out, err := c.write(w, "again", nil)
		if err != nil || out.Replayed != tc.wantReplay {
			t.Errorf("%s: %+v, %v; want replayed=%v", tc.name, out, err, tc.wantReplay)
		}
	}
}

func TestIdempotencyRecordExpiry(t *testing.T) {
	tests := []struct {
		name string
		rec  store.IdempotencyRecord
		want time.Time
	}{
		{"own expiry", store.IdempotencyRecord{CreatedAt: t0, ExpiresAt: t0.Add(time.Hour)}, t0.Add(time.Hour)},
		{"stored before records had one", store.IdempotencyRecord{CreatedAt: t0}, t0.Add(24 * time.Hour)},
	}
	for _, tc := range tests {
		if got := tc.rec.Expiry(); !got.Equal(tc.want) {
			t.Errorf("%s: Expiry() = %v, want %v", tc.name, got, tc.want)
		}
		if tc.rec.Expired(tc.want.Add(-time.Nanosecond)) || !tc.rec.Expired(tc.want) {
			t.Errorf("%s: Expired is not false just before %v and true from then on", tc.name, tc.want)
		}
	}
}

func TestIdempotentWriteRecordsRequestErrors(t *testing.T) {
	c := &counter{s: mustOpen(t)}
	bad := connect.Errorf(connect.CodeInvalidRequest, "targets must be an array")
	_, err := c.write(write("k", `{"targets":1}`, t0), "", bad)
	if connect.ErrorCodeOf(err) != connect.CodeInvalidRequest {
		t.Fatalf("first call: %v", err)
	}
	// The retry answers the recorded error, marked as replayed, without running.
	out, err := c.write(write("k", `{"targets":1}`, t0), "ok", nil)
	if connect.ErrorCodeOf(err) != connect.CodeInvalidRequest || !out.Replayed || !strings.Contains(err.Error(), "targets must be an array") {
		t.Errorf("retry = %+v, %v; want the recorded InvalidRequest, replayed", out, err)
	}
	// An internal fault is not recorded: a retry runs.
	_, err = c.write(write("k-internal", `{}`, t0), "", errors.New("disk on fire"))
	if connect.ErrorCodeOf(err) != connect.CodeInternalError {
		t.Fatalf("internal fault: %v", err)
	}
	out, err = c.write(write("k-internal", `{}`, t0), "ok", nil)
	if err != nil || out.Replayed || out.Value != "ok" {
		t.Errorf("retry after an internal fault = %+v, %v; want a fresh run", out, err)
	}
	if c.runs != 1 {
		t.Errorf("ran %d times, want 1", c.runs)
	}
}

func TestIdempotentWriteKeyInUse(t *testing.T) {
	s := mustOpen(t)
	started, release := make(chan struct{}), make(chan struct{})
	done := make(chan error)
	go func() {
		_, err := runIdempotent(bgctx, s, write("busy", `{}`, t0), func() (store.TxFunc[int], error) {
			close(started)
			<-release
			return func(store.Tx) (int, bool, error) { return 1, false, nil }, nil
		})
		done <- err
	}()
	storetest.Receive(t, started, "the first request to start")
	_, err := runIdempotent(bgctx, s, write("busy", `{}`, t0), func() (store.TxFunc[int], error) {
		t.Error("the second request ran while the first was in progress")
		return nil, nil
	})
	if connect.ErrorCodeOf(err) != connect.CodeIdempotencyKeyInUse {
		t.Errorf("concurrent request: got %v, want IdempotencyKeyInUse", err)
	}
	close(release)
	if err := storetest.Receive(t, done, "the first request"); err != nil {
		t.Fatal(err)
	}
	out, err := runIdempotent(bgctx, s, write("busy", `{}`, t0), func() (store.TxFunc[int], error) {
		t.Error("ran again after completion")
		return nil, nil
	})
	if err != nil || !out.Replayed || out.Value != 1 {
		t.Errorf("after completion = %+v, %v; want a replay", out, err)
	}
}

// TestIdempotentWriteInvalidUTF8Key: a key that is not UTF-8 is a request error,
// answered before anything runs, not an internal fault of encoding its record.
func TestIdempotentWriteInvalidUTF8Key(t *testing.T) {
	c := &counter{s: mustOpen(t)}
	out, err := c.write(write("abc\xff", `{}`, t0), "x", nil)
	if connect.ErrorCodeOf(err) != connect.CodeInvalidRequest || out.Replayed {
		t.Fatalf("key abc\\xff: %+v, %v; want InvalidRequest", out, err)
	}
	if c.runs != 0 {
		t.Errorf("the write ran %d times, want 0", c.runs)
	}
	err = c.s.View(bgctx, func(tx store.Tx) error {
		_, err := tx.IdempotencyRecord(store.IdempotencyKey{TenantID: "t1", ClientID: "c1", Key: "abc\xff"})
		return err
	})
	if !errors.Is(err, connect.ErrNotFound) {
		t.Errorf("record of the invalid key: %v, want NotFound", err)
	}
}

func TestValidateIdempotencyKey(t *testing.T) {
	tests := []struct {
		key string
		ok  bool
	}{
		{"a", true},
		{"order-2026-11-21/42 ✓", true},
		{strings.Repeat("k", 255), true},
		{"", false},
		{strings.Repeat("k", 256), false},
		{"tab\there", false},
		{"new\nline", false},
		{"abc\xff", false},
		{"cut \xc3", false},
		{"surrogate \xed\xa0\x80", false},
		{"\xef\xbf\xbd", true}, // U+FFFD itself, encoded correctly
	}
	for _, tc := range tests {
		err := store.ValidateIdempotencyKey(tc.key)
		if (err == nil) != tc.ok {
			t.Errorf("ValidateIdempotencyKey(%q) = %v, want ok=%v", tc.key, err, tc.ok)
		}
		if err != nil && connect.ErrorCodeOf(err) != connect.CodeInvalidRequest {
			t.Errorf("ValidateIdempotencyKey(%q) code = %s", tc.key, connect.ErrorCodeOf(err))
		}
	}
}

func TestFingerprintIgnoresFormatting(t *testing.T) {
	a := store.Fingerprint("POST /x", []byte(`{"a":1,"b":{"c":"d","e":[1,2]}}`))
	b := store.Fingerprint("POST /x", []byte("{\n  \"b\": {\"e\": [1, 2], \"c\": \"d\"},\n  \"a\": 1.0\n}"))
	if string(a) != string(b) {
		t.Error("fingerprints of the same JSON differ")
	}
	if string(a) == string(store.Fingerprint("POST /y", []byte(`{"a":1,"b":{"c":"d","e":[1,2]}}`))) {
		t.Error("fingerprints of different operations are equal")
	}
	if string(store.Fingerprint("POST /x", []byte("not json"))) == string(store.Fingerprint("POST /x", []byte("not  json"))) {
		t.Error("invalid JSON bodies must be compared byte for byte")
	}
	// Anything after the value makes the body another request, valid or not.
	for _, trailing := range []string{"}", " ]", " garbage", ` {"b":2}`} {
		if string(store.Fingerprint("POST /x", []byte(`{"a":1}`))) == string(store.Fingerprint("POST /x", []byte(`{"a":1}`+trailing))) {
			t.Errorf("a body with %q after the object has the fingerprint of the object alone", trailing)
		}
	}
}

// TestClaimCommitRereadsTheRecord: when a claim expired (its holder stalled)
// and another request under the key committed meanwhile, the stalled request
// replays that outcome at commit and its own effects are dropped: a key never
// executes twice, whatever the claims did.
func TestClaimCommitRereadsTheRecord(t *testing.T) {
	c := &counter{s: mustOpen(t)}
	stalled, err := store.ClaimWrite[string](bgctx, c.s, write("k", `{}`, t0))
	if err != nil {
		t.Fatal(err)
	}
	stalled.Release() // as if its claim had expired
	if out, err := c.write(write("k", `{}`, t0), "winner", nil); err != nil || out.Value != "winner" {
		t.Fatalf("second request: %+v, %v", out, err)
	}
	out, err := stalled.Commit(bgctx, func(tx store.Tx) (string, bool, error) {
		c.runs++
		return "loser", true, tx.CreateTarget(&store.Target{TenantID: "t1", SourceSystem: "s", ExternalID: "loser"})
	})
	if err != nil || !out.Replayed || out.Value != "winner" {
		t.Errorf("stalled request = %+v, %v; want the winner's outcome replayed", out, err)
	}
	err = c.s.View(bgctx, func(tx store.Tx) error {
		_, err := tx.TargetByExternalID("t1", "s", "loser")
		return err
	})
	if !errors.Is(err, connect.ErrNotFound) {
		t.Errorf("the stalled request's effects: %v, want none (NotFound)", err)
	}
}
