package bolt

import (
	"bytes"
	"encoding/binary"
	"math"
	"time"

	"github.com/cockroachdb/errors"
	"github.com/go-json-experiment/json"
	bbolt "go.etcd.io/bbolt"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/store"
)

// eventIndexKey lists an event under its tenant and kind, so the events one
// subscription may receive form a few key ranges sorted by sequence number.
func eventIndexKey(tenantID string, kind connect.EventKind, seq int64) []byte {
	return append(tuple(tenantID, string(kind)), idKey(seq)...)
}

// seqOf reads the sequence number at the end of an event index key.
func seqOf(key []byte) int64 { return int64(binary.BigEndian.Uint64(key[len(key)-8:])) }

func (t *tx) AppendEvent(e *store.Event) error {
	seq, err := nextID(t.bucket(bucketEvents))
	if err != nil {
		return err
	}
	e.Seq = seq
	if err := t.bucket(bucketEventIndex).Put(eventIndexKey(e.TenantID, e.Kind, seq), nil); err != nil {
		return errors.Wrap(err, "indexing an event")
	}
	if err := t.bucket(bucketEventIDs).Put(tuple(e.TenantID, e.ID), idKey(seq)); err != nil {
		return errors.Wrap(err, "indexing an event by id")
	}
	return put(t.bucket(bucketEvents), idKey(seq), e)
}

func (t *tx) Events(tenantID string, kinds []connect.EventKind, after, before int64, limit int) ([]store.Event, error) {
	if len(kinds) == 0 {
		kinds = connect.EventKinds
	}
	ranges := make([]*kindRange, len(kinds))
	for i, kind := range kinds {
		ranges[i] = seekKind(t.bucket(bucketEventIndex), tenantID, kind, after)
	}
	var events []store.Event
	for len(events) < limit {
		r := lowest(ranges)
		if r == nil || before > 0 && r.seq >= before {
			break
		}
		var e store.Event
		if err := get(t.bucket(bucketEvents), idKey(r.seq), &e); err != nil {
			return nil, errors.Wrap(err, "reading an indexed event")
		}
		events = append(events, e)
		r.next()
	}
	return events, nil
}

// kindRange walks the index entries of one tenant and kind in sequence
// order; seq is the current entry's, and done is set past the last.
type kindRange struct {
	c      *bbolt.Cursor
	prefix []byte
	seq    int64
	done   bool
}

func seekKind(index *bbolt.Bucket, tenantID string, kind connect.EventKind, after int64) *kindRange {
	r := &kindRange{c: index.Cursor(), prefix: tuple(tenantID, string(kind))}
	k, _ := r.c.Seek(append(bytes.Clone(r.prefix), idKey(after+1)...))
	r.at(k)
	return r
}

func (r *kindRange) at(k []byte) {
	r.done = k == nil || !bytes.HasPrefix(k, r.prefix)
	if !r.done {
		r.seq = seqOf(k)
	}
}

func (r *kindRange) next() {
	k, _ := r.c.Next()
	r.at(k)
}

// lowest returns the range whose current event comes first, nil when every
// range is done.
func lowest(ranges []*kindRange) *kindRange {
	var low *kindRange
	for _, r := range ranges {
		if !r.done && (low == nil || r.seq < low.seq) {
			low = r
		}
	}
	return low
}

func (t *tx) EventByID(tenantID, id string) (*store.Event, error) {
	seq := t.bucket(bucketEventIDs).Get(tuple(tenantID, id))
	if seq == nil {
		return nil, connect.ErrNotFound
	}
	var e store.Event
	if err := get(t.bucket(bucketEvents), seq, &e); err != nil {
		return nil, errors.Wrap(err, "reading an indexed event")
	}
	return &e, nil
}

// EventSeqAt searches the events by sequence number for the first created at
// or after at: O(log n) reads, as event times follow their numbers.
func (t *tx) EventSeqAt(at time.Time) (int64, error) {
	events := t.bucket(bucketEvents)
	c := events.Cursor()
	// firstFrom returns the first event numbered seq or above (nil: none).
	firstFrom := func(seq int64) (*store.Event, error) {
		k, v := c.Seek(idKey(seq))
		if k == nil {
			return nil, nil
		}
		var e store.Event
		return &e, errors.Wrap(json.Unmarshal(v, &e), "decoding an event")
	}
	lo, hi := int64(1), int64(events.Sequence())+1
	for lo < hi { // the first seq whose first event is at or after at, or none
		mid := lo + (hi-lo)/2
		e, err := firstFrom(mid)
		if err != nil {
			return 0, err
		}
		if e == nil || !e.CreatedAt.Before(at) {
			hi = mid
		} else {
			lo = e.Seq + 1
		}
	}
	e, err := firstFrom(lo)
	if err != nil || e == nil {
		return int64(events.Sequence()) + 1, err
	}
	return e.Seq, nil
}

// PruneEvents deletes the oldest events in sequence order, stopping at the
// first one created at or after cutoff: times follow numbers (see
// EventSeqAt), so what is left is at most a commit's duration younger.
func (t *tx) PruneEvents(cutoff time.Time, limit int) (int, error) {
	doomed, err := oldest(t.bucket(bucketEvents), cutoff, limit, func(e *store.Event) time.Time { return e.CreatedAt })
	if err != nil {
		return 0, err
	}
	for _, e := range doomed {
		for _, del := range []struct {
			b   []byte
			key []byte
		}{
			{bucketEvents, idKey(e.Seq)},
			{bucketEventIndex, eventIndexKey(e.TenantID, e.Kind, e.Seq)},
			{bucketEventIDs, tuple(e.TenantID, e.ID)},
		} {
			if err := t.bucket(del.b).Delete(del.key); err != nil {
				return 0, errors.Wrap(err, "pruning an event")
			}
		}
	}
	return len(doomed), nil
}

func (t *tx) CountEvents() (int, error) {
	return t.bucket(bucketEvents).Stats().KeyN, nil
}

// --- delivery attempts

func attemptKey(subscriptionID, id int64) []byte {
	return append(idKey(subscriptionID), idKey(id)...)
}

func (t *tx) AppendAttempt(a *store.Attempt) error {
	id, err := nextID(t.bucket(bucketAttemptIDs))
	if err != nil {
		return err
	}
	a.ID = id
	if err := t.bucket(bucketAttemptIDs).Put(idKey(id), idKey(a.SubscriptionID)); err != nil {
		return errors.Wrap(err, "indexing an attempt")
	}
	return put(t.bucket(bucketAttempts), attemptKey(a.SubscriptionID, id), a)
}

func (t *tx) Attempts(tenantID string, subscriptionID, before int64, limit int) ([]store.Attempt, error) {
	if _, err := t.Subscription(tenantID, subscriptionID); err != nil {
		return nil, err
	}
	if before <= 0 {
		before = math.MaxInt64
	}
	prefix := idKey(subscriptionID)
	c := t.bucket(bucketAttempts).Cursor()
	k, v := c.Seek(attemptKey(subscriptionID, before))
	if k == nil {
		k, v = c.Last()
	} else {
		k, v = c.Prev()
	}
	var list []store.Attempt
	for ; k != nil && bytes.HasPrefix(k, prefix) && len(list) < limit; k, v = c.Prev() {
		var a store.Attempt
		if err := json.Unmarshal(v, &a); err != nil {
			return nil, errors.Wrap(err, "decoding an attempt")
		}
		list = append(list, a)
	}
	return list, nil
}

func (t *tx) PruneAttempts(cutoff time.Time, limit int) (int, error) {
	var doomed [][2][]byte
	c := t.bucket(bucketAttemptIDs).Cursor()
	for k, sub := c.First(); k != nil && len(doomed) < limit; k, sub = c.Next() {
		var a store.Attempt
		key := append(bytes.Clone(sub), k...)
		if err := get(t.bucket(bucketAttempts), key, &a); err != nil && !errors.Is(err, connect.ErrNotFound) {
			return 0, errors.Wrap(err, "reading an attempt")
		} else if err == nil && !a.At.Before(cutoff) {
			break
		}
		doomed = append(doomed, [2][]byte{bytes.Clone(k), key})
	}
	for _, d := range doomed {
		if err := t.bucket(bucketAttemptIDs).Delete(d[0]); err != nil {
			return 0, errors.Wrap(err, "pruning an attempt")
		}
		if err := t.bucket(bucketAttempts).Delete(d[1]); err != nil {
			return 0, errors.Wrap(err, "pruning an attempt")
		}
	}
	return len(doomed), nil
}

// deleteAttempts deletes every attempt of a subscription (their entries in
// the id index go when PruneAttempts reaches them).
func (t *tx) deleteAttempts(subscriptionID int64) error {
	prefix := idKey(subscriptionID)
	c := t.bucket(bucketAttempts).Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Seek(prefix) {
		if err := c.Delete(); err != nil {
			return errors.Wrap(err, "deleting a subscription's attempts")
		}
	}
	return nil
}

func (t *tx) CreateSubscription(s *store.Subscription) error {
	id, err := nextID(t.bucket(bucketWebhooks))
	if err != nil {
		return err
	}
	s.ID = id
	s.Cursor = int64(t.bucket(bucketEvents).Sequence())
	return put(t.bucket(bucketWebhooks), idKey(id), s)
}

func (t *tx) Subscription(tenantID string, id int64) (*store.Subscription, error) {
	return getOwned(t.bucket(bucketWebhooks), id, tenantID, func(r *store.Subscription) string { return r.TenantID })
}

func (t *tx) PutSubscription(s *store.Subscription) error {
	if _, err := t.Subscription(s.TenantID, s.ID); err != nil {
		return err
	}
	return put(t.bucket(bucketWebhooks), idKey(s.ID), s)
}

func (t *tx) DeleteSubscription(tenantID string, id int64) error {
	if _, err := t.Subscription(tenantID, id); err != nil {
		return err
	}
	if err := t.deleteAttempts(id); err != nil {
		return err
	}
	return errors.Wrap(t.bucket(bucketWebhooks).Delete(idKey(id)), "deleting a subscription")
}

func (t *tx) Subscriptions(tenantID string) ([]store.Subscription, error) {
	var list []store.Subscription
	err := scan(t.bucket(bucketWebhooks), nil, func(_, v []byte) (bool, error) {
		var s store.Subscription
		if err := json.Unmarshal(v, &s); err != nil {
			return false, errors.Wrap(err, "decoding a subscription")
		}
		if tenantID == "" || s.TenantID == tenantID {
			list = append(list, s)
		}
		return true, nil
	})
	return list, err
}
