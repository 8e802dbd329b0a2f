package bolt

import (
	"bytes"
	"encoding/binary"
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
	return put(t.bucket(bucketEvents), idKey(seq), e)
}

func (t *tx) NextEvent(tenantID string, kinds []connect.EventKind, after int64) (*store.Event, error) {
	next := int64(-1)
	c := t.bucket(bucketEventIndex).Cursor()
	for _, kind := range kinds {
		prefix := tuple(tenantID, string(kind))
		k, _ := c.Seek(append(prefix, idKey(after+1)...))
		if k != nil && bytes.HasPrefix(k, prefix) && (next < 0 || seqOf(k) < next) {
			next = seqOf(k)
		}
	}
	if next < 0 {
		return nil, connect.ErrNotFound
	}
	var e store.Event
	if err := get(t.bucket(bucketEvents), idKey(next), &e); err != nil {
		return nil, errors.Wrap(err, "reading an indexed event")
	}
	return &e, nil
}

func (t *tx) PruneEvents(cutoff time.Time, limit int) (int, error) {
	marks, err := t.deliveredUpTo()
	if err != nil {
		return 0, err
	}
	var doomed [][]byte
	c := t.bucket(bucketEventIndex).Cursor()
	for k, _ := c.First(); k != nil && len(doomed) < limit; k, _ = skipRange(c, k) {
		more, err := t.prunable(c, k, marks, cutoff, limit-len(doomed))
		if err != nil {
			return 0, err
		}
		doomed = append(doomed, more...)
	}
	for _, k := range doomed {
		if err := t.bucket(bucketEvents).Delete(idKey(seqOf(k))); err != nil {
			return 0, errors.Wrap(err, "pruning an event")
		}
		if err := t.bucket(bucketEventIndex).Delete(k); err != nil {
			return 0, errors.Wrap(err, "pruning an event")
		}
	}
	return len(doomed), nil
}

// deliveredUpTo maps each (tenant, kind) that some subscription wants to the
// lowest cursor among those subscriptions: events of that range above it are
// still waiting. Ranges nobody wants are absent: none of their events waits.
func (t *tx) deliveredUpTo() (map[string]int64, error) {
	subs, err := t.Subscriptions("")
	marks := map[string]int64{}
	for _, s := range subs {
		for _, kind := range s.Kinds {
			r := string(tuple(s.TenantID, string(kind)))
			if mark, ok := marks[r]; !ok || s.Cursor < mark {
				marks[r] = s.Cursor
			}
		}
	}
	return marks, err
}

// prunable returns the keys, from the index key first on, of the events of
// one (tenant, kind) range that may go: a range is in sequence order, so it
// stops at the first event still waiting or not yet old enough.
func (t *tx) prunable(c *bbolt.Cursor, first []byte, marks map[string]int64, cutoff time.Time, limit int) ([][]byte, error) {
	prefix := first[:len(first)-8]
	mark, wanted := marks[string(prefix)]
	var keys [][]byte
	for k := first; k != nil && bytes.HasPrefix(k, prefix) && len(keys) < limit; k, _ = c.Next() {
		if wanted && seqOf(k) > mark {
			break
		}
		var e store.Event
		if err := get(t.bucket(bucketEvents), idKey(seqOf(k)), &e); err != nil {
			return nil, errors.Wrap(err, "reading an indexed event")
		}
		if !e.CreatedAt.Before(cutoff) {
			break
		}
		keys = append(keys, bytes.Clone(k))
	}
	return keys, nil
}

// skipRange moves c to the first key of the range after the one holding key.
func skipRange(c *bbolt.Cursor, key []byte) ([]byte, []byte) {
	last := append(bytes.Clone(key[:len(key)-8]), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff)
	k, v := c.Seek(last)
	if bytes.Equal(k, last) {
		return c.Next()
	}
	return k, v
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
