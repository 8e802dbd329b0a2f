package store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/cockroachdb/errors"
	"github.com/go-json-experiment/json"

	"github.com/integration-connect/connect"
)

// DefaultIdempotencyRetention is how long idempotency records are kept unless
// a service is configured otherwise.
const DefaultIdempotencyRetention = 24 * time.Hour

// MaxIdempotencyKeyLength is the longest accepted Idempotency-Key.
const MaxIdempotencyKeyLength = 255

// purgePerWrite is how many expired records each idempotent write deletes, so
// expired records disappear without a background job and no write pays much.
const purgePerWrite = 16

// Write describes one write that may carry an idempotency key.
type Write struct {
	// Caller's tenant and client scope the key.
	Caller connect.Caller
	// Key is the caller's Idempotency-Key; empty means not idempotent.
	Key string
	// Operation names what the request does, including the ids in its path (for
	// example "POST /import-jobs/42/route-suggestion"). Together with Body it is
	// the request's fingerprint.
	Operation string
	// Body is the request as JSON; key order and white space do not count.
	Body []byte
	// Now is the time of the request.
	Now time.Time
	// Retention is how long the record of this write is kept; zero means
	// DefaultIdempotencyRetention. Records of other writes keep their own.
	Retention time.Duration
}

// Outcome is what an idempotent write produced or replayed.
type Outcome[T any] struct {
	Value T
	// Created is true when the write created a resource (HTTP 201).
	Created bool
	// Replayed is true when Value is the stored outcome of an earlier request.
	Replayed bool
}

// ValidateIdempotencyKey checks a key's form: 1 to 255 bytes of printable
// characters in UTF-8. A key that is not UTF-8 could not be stored in its record.
func ValidateIdempotencyKey(key string) error {
	if key == "" || len(key) > MaxIdempotencyKeyLength {
		return connect.Errorf(connect.CodeInvalidRequest, "Idempotency-Key must be 1 to %d characters", MaxIdempotencyKeyLength)
	}
	if !utf8.ValidString(key) {
		return connect.Errorf(connect.CodeInvalidRequest, "Idempotency-Key must be valid UTF-8")
	}
	for _, r := range key {
		if !unicode.IsPrint(r) {
			return connect.Errorf(connect.CodeInvalidRequest, "Idempotency-Key must contain only printable characters")
		}
	}
	return nil
}

// TxFunc is the transactional part of a write: it reads and writes through tx
// and reports whether it created a resource. Like every Update function it may
// run more than once.
type TxFunc[T any] func(tx Tx) (value T, created bool, err error)

// RunIdempotent is the one way writes are executed. prepare does the work that
// needs no transaction (decoding, validating, computing) and returns the
// transactional part, which runs in one read-write transaction of s together with
// the idempotency record of w when w has a key, so effects and record are
// committed together or not at all:
//   - same key, same fingerprint: the stored outcome is returned, nothing runs;
//   - same key, other fingerprint: connect.ErrIdempotencyKeyReused;
//   - same key while the first request runs: connect.ErrIdempotencyKeyInUse.
//
// When prepare or the transaction fails with a request error (a *connect.Error
// other than InternalError), the effects are rolled back and the error itself is
// recorded, so a retry gets the same answer; internal faults are not recorded,
// so a retry may succeed.
func RunIdempotent[T any](ctx context.Context, s Store, w Write, prepare func() (TxFunc[T], error)) (Outcome[T], error) {
	if w.Key == "" {
		fn, err := prepare()
		if err != nil {
			return Outcome[T]{}, err
		}
		return commit(ctx, s, fn, nil, w)
	}
	if err := ValidateIdempotencyKey(w.Key); err != nil {
		return Outcome[T]{}, err
	}
	key := IdempotencyKey{TenantID: w.Caller.TenantID, ClientID: w.Caller.ClientID, Key: w.Key}
	unlock, ok := s.TryLock("idempotency\x00" + key.TenantID + "\x00" + key.ClientID + "\x00" + key.Key)
	if !ok {
		return Outcome[T]{}, connect.Errorf(connect.CodeIdempotencyKeyInUse, "a request with this Idempotency-Key is still being processed; retry later")
	}
	defer unlock()

	rec := &IdempotencyRecord{Key: key, Fingerprint: Fingerprint(w.Operation, w.Body), CreatedAt: w.Now, ExpiresAt: w.Now.Add(retention(w))}
	stored, err := liveRecord(ctx, s, key, w)
	if err != nil {
		return Outcome[T]{}, err
	}
	if stored != nil {
		return replay[T](stored, rec.Fingerprint)
	}
	out, err := prepareAndCommit(ctx, s, prepare, rec, w)
	if cerr := connect.AsError(err); cerr != nil && cerr.Code != connect.CodeInternalError {
		rec.ErrorCode, rec.ErrorMessage = cerr.Code, cerr.Message
		if rerr := s.Update(ctx, func(tx Tx) error { return putRecord(tx, rec, w) }); rerr != nil {
			return out, errors.CombineErrors(err, rerr)
		}
	}
	return out, err
}

func prepareAndCommit[T any](ctx context.Context, s Store, prepare func() (TxFunc[T], error), rec *IdempotencyRecord, w Write) (Outcome[T], error) {
	fn, err := prepare()
	if err != nil {
		return Outcome[T]{}, err
	}
	return commit(ctx, s, fn, rec, w)
}

// commit runs fn in one transaction and, when rec is not nil, stores the
// outcome in rec in the same transaction.
func commit[T any](ctx context.Context, s Store, fn TxFunc[T], rec *IdempotencyRecord, w Write) (Outcome[T], error) {
	var out Outcome[T]
	err := s.Update(ctx, func(tx Tx) (err error) {
		out.Value, out.Created, err = fn(tx)
		if err != nil || rec == nil {
			return err
		}
		if rec.Result, err = json.Marshal(out.Value); err != nil {
			return errors.Wrap(err, "encoding an idempotent result")
		}
		rec.Created = out.Created
		return putRecord(tx, rec, w)
	})
	return out, err
}

// liveRecord returns the unexpired record of key, or nil.
func liveRecord(ctx context.Context, s Store, key IdempotencyKey, w Write) (*IdempotencyRecord, error) {
	var rec *IdempotencyRecord
	err := s.View(ctx, func(tx Tx) error {
		r, err := tx.IdempotencyRecord(key)
		if errors.Is(err, connect.ErrNotFound) || (err == nil && r.Expired(w.Now)) {
			return nil
		}
		rec = r
		return err
	})
	return rec, err
}

func retention(w Write) time.Duration {
	if w.Retention <= 0 {
		return DefaultIdempotencyRetention
	}
	return w.Retention
}

func replay[T any](rec *IdempotencyRecord, fingerprint []byte) (Outcome[T], error) {
	out := Outcome[T]{Replayed: true}
	if !bytes.Equal(rec.Fingerprint, fingerprint) {
		return Outcome[T]{}, connect.Errorf(connect.CodeIdempotencyKeyReused,
			"this Idempotency-Key was already used with a different request; use a new key for a new request")
	}
	if rec.ErrorCode != "" {
		return out, &connect.Error{Code: rec.ErrorCode, Message: rec.ErrorMessage}
	}
	if err := json.Unmarshal(rec.Result, &out.Value); err != nil {
		return Outcome[T]{}, errors.Wrap(err, "decoding a stored idempotent result")
	}
	out.Created = rec.Created
	return out, nil
}

func putRecord(tx Tx, rec *IdempotencyRecord, w Write) error {
	if _, err := tx.PurgeIdempotencyRecords(w.Now, purgePerWrite); err != nil {
		return err
	}
	return tx.PutIdempotencyRecord(rec)
}

// Fingerprint identifies a request: the SHA-256 of its operation and the
// canonical digest of its JSON body (canonicalDigest: white space, member order
// and number spelling do not count; numbers compare by exact decimal value). A
// body that is not valid JSON is taken byte for byte.
func Fingerprint(operation string, body []byte) []byte {
	h := sha256.New()
	h.Write([]byte(operation))
	if d, ok := canonicalDigest(body); ok {
		h.Write([]byte{0})
		h.Write(d[:])
	} else {
		h.Write([]byte{1})
		h.Write(body)
	}
	return h.Sum(nil)
}
