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
	// Body is the request as JSON: as received, or a typed request encoded by
	// connect.EncodeRequest. Key order and white space do not count.
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
	if key == "" || len(key) > connect.MaxIdempotencyKeyLength {
		return connect.Errorf(connect.CodeInvalidRequest, "Idempotency-Key must be 1 to %d characters", connect.MaxIdempotencyKeyLength)
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

// claimTTL is how long a claim on an idempotency key lasts at most when its
// holder neither finishes nor dies (a holder that dies frees it at once: see
// Store.Claim): until then a retry with the key is told the request is
// still in progress.
const claimTTL = time.Minute

// claimRetryAfter is when a request refused with IdempotencyKeyInUse is told
// to retry: a write holds its key for milliseconds to a few seconds, and the
// key of a holder that died is free within seconds, so one second is never
// more than the time until the claim lapses (claimTTL).
const claimRetryAfter = time.Second

// TxFunc is the transactional part of a write: it reads and writes through tx
// and reports whether it created a resource. Like every Update function it may
// run more than once.
type TxFunc[T any] func(tx Tx) (value T, created bool, err error)

// Claim is a write in progress under its idempotency key. Every write of every
// service takes the same three steps, so each reads top to bottom:
//
//	claim, err := store.ClaimWrite[T](ctx, s, w)   // the key is ours, or in use
//	if err != nil { return ..., err }
//	defer claim.Release()
//	if claim.Stored() { return claim.Replay() }  // answered before
//	req, err := decode(w.Body)                    // decode, validate, compute
//	if err != nil { return claim.Fail(ctx, err) } // a request error is recorded
//	return claim.Commit(ctx, fn)                  // effects and record, one transaction
//
// Effects and record are committed in one transaction, so a crash never
// leaves one without the other:
//   - same key, same fingerprint: the stored outcome is returned, nothing runs;
//   - same key, other fingerprint: connect.ErrIdempotencyKeyReused;
//   - same key while the first request runs: connect.ErrIdempotencyKeyInUse.
//
// A write without a key claims nothing, has nothing stored and records
// nothing.
type Claim[T any] struct {
	s       Store
	w       Write
	rec     *IdempotencyRecord // the record to write; nil without a key
	stored  *IdempotencyRecord // the live record found when claiming
	release func()
}

// ClaimWrite checks w's key, claims it across every process sharing s and
// reads the outcome stored under it, if any.
func ClaimWrite[T any](ctx context.Context, s Store, w Write) (*Claim[T], error) {
	c := &Claim[T]{s: s, w: w, release: func() {}}
	if w.Key == "" {
		return c, nil
	}
	if err := ValidateIdempotencyKey(w.Key); err != nil {
		return nil, err
	}
	key := IdempotencyKey{TenantID: w.Caller.TenantID, ClientID: w.Caller.ClientID, Key: w.Key}
	release, ok, err := s.Claim(ctx, "idempotency\x00"+key.TenantID+"\x00"+key.ClientID+"\x00"+key.Key, claimTTL)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, &connect.Error{Code: connect.CodeIdempotencyKeyInUse, RetryAfter: claimRetryAfter,
			Message: "a request with this Idempotency-Key is still being processed; retry in a second"}
	}
	c.release = release
	c.rec = &IdempotencyRecord{Key: key, Fingerprint: Fingerprint(w.Operation, w.Body), CreatedAt: w.Now, ExpiresAt: w.Now.Add(retention(w))}
	err = s.View(ctx, func(tx Tx) (err error) {
		c.stored, err = liveRecord(tx, key, w.Now)
		return err
	})
	if err != nil {
		release()
		return nil, err
	}
	return c, nil
}

// Release gives the key up for other requests. Call it when the write is done.
func (c *Claim[T]) Release() { c.release() }

// Stored reports whether an outcome is stored under the key: Replay returns it.
func (c *Claim[T]) Stored() bool { return c.stored != nil }

// Replay returns the stored outcome, or connect.ErrIdempotencyKeyReused when
// it was stored for a different request.
func (c *Claim[T]) Replay() (Outcome[T], error) { return replay[T](c.stored, c.rec.Fingerprint) }

// Fail ends a write that failed before its transaction. A request error (a
// *connect.Error that answersEveryRetry) is recorded under the key, so a
// retry gets the same answer; internal faults, limits and any other error are
// not, so a retry may succeed.
func (c *Claim[T]) Fail(ctx context.Context, err error) (Outcome[T], error) {
	cerr := connect.AsError(err)
	if c.rec == nil || cerr == nil || !answersEveryRetry(cerr.Code) {
		return Outcome[T]{}, err
	}
	c.rec.ErrorCode, c.rec.ErrorMessage = cerr.Code, cerr.Message
	out, _, rerr := c.commit(ctx, func(Tx) (T, bool, error) { var zero T; return zero, false, nil })
	switch {
	case out.Replayed || errors.Is(rerr, connect.ErrIdempotencyKeyReused):
		return out, rerr
	case rerr != nil:
		return Outcome[T]{}, errors.CombineErrors(err, rerr)
	}
	return Outcome[T]{}, err
}

// answersEveryRetry reports whether a request error is the request's own
// answer, the same on every retry, and so recorded under its key. Faults,
// limits and the caller's credentials may change before a retry.
func answersEveryRetry(code connect.ErrorCode) bool {
	switch code {
	case connect.CodeInternalError, connect.CodeRateLimited, connect.CodeIdempotencyKeyInUse,
		connect.CodeUnauthorized, connect.CodeInsufficientScope, connect.CodeServiceUnavailable:
		return false
	}
	return true
}

// Commit runs fn in one read-write transaction together with the record of
// the outcome. When fn fails with a request error, its effects are rolled back
// and the error is recorded as Fail does.
func (c *Claim[T]) Commit(ctx context.Context, fn TxFunc[T]) (Outcome[T], error) {
	out, fnErr, err := c.commit(ctx, fn)
	if fnErr != nil {
		return c.Fail(ctx, fnErr)
	}
	return out, err
}

// commit runs fn and stores the record in one transaction. The record is read
// again there: when the claim expired and another request under the key
// committed meanwhile, its outcome is replayed and fn's effects are dropped.
// fnErr is fn's own error, err a fault of the store or of the replay.
func (c *Claim[T]) commit(ctx context.Context, fn TxFunc[T]) (out Outcome[T], fnErr, err error) {
	var stored *IdempotencyRecord
	err = c.s.Update(ctx, func(tx Tx) (err error) {
		out, fnErr, stored = Outcome[T]{}, nil, nil
		if c.rec != nil {
			if stored, err = liveRecord(tx, c.rec.Key, c.w.Now); err != nil || stored != nil {
				return err
			}
		}
		if out.Value, out.Created, fnErr = fn(tx); fnErr != nil {
			return fnErr
		}
		if c.rec == nil {
			return nil
		}
		if c.rec.ErrorCode == "" {
			if c.rec.Result, err = json.Marshal(out.Value); err != nil {
				return errors.Wrap(err, "encoding an idempotent result")
			}
			c.rec.Created = out.Created
		}
		return putRecord(tx, c.rec, c.w)
	})
	if fnErr != nil && errors.Is(err, fnErr) {
		return Outcome[T]{}, fnErr, nil
	}
	if err != nil {
		// The store's own failure (an engine may report a conflict in place
		// of what fn returned): never recorded as the request's answer.
		return Outcome[T]{}, nil, err
	}
	if stored != nil {
		out, err = replay[T](stored, c.rec.Fingerprint)
	}
	return out, nil, err
}

// liveRecord returns the unexpired record of key, or nil.
func liveRecord(tx Tx, key IdempotencyKey, now time.Time) (*IdempotencyRecord, error) {
	r, err := tx.IdempotencyRecord(key)
	if errors.Is(err, connect.ErrNotFound) || (err == nil && r.Expired(now)) {
		return nil, nil
	}
	return r, err
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
