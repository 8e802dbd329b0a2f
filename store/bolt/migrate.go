package bolt

import (
	"bytes"
	"encoding/binary"

	"github.com/cockroachdb/errors"
	"github.com/go-json-experiment/json"
	bbolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"

	"github.com/integration-connect/connect/store"
)

// schemaVersion is the layout this package writes; meta holds the layout of
// a file, so Open can bring an older file up to date.
//
//	1: the first layout.
//	2: idempotency records are indexed by expiry (idempotency_expiry), not by
//	   creation time (idempotency_by_age), as services keep them for different times.
//	3: job items and idempotency results may be deflated (see pack.go). Values
//	   of schema 2 read as they are, so nothing is converted; the version only
//	   keeps older versions, which cannot read deflated values, off the file.
//	4: events are indexed by id (event_ids), for the events feed.
const schemaVersion = 4

var keySchema = []byte("schema")

// bucketIdempotencyAge is the index of schema 1 that schema 2 replaces.
var bucketIdempotencyAge = []byte("idempotency_by_age")

// ErrNewerSchema means the file was written by a newer version of this
// package, whose layout this one does not know.
var ErrNewerSchema = errors.New("the database file was written by a newer version of Integration Connect")

// migrate brings the file to schemaVersion in the transaction that created
// the buckets, so a file is upgraded whole or not at all. A new file needs
// nothing.
func migrate(btx *bbolt.Tx) error {
	meta := btx.Bucket(bucketMeta)
	version := uint64(schemaVersion)
	if v := meta.Get(keySchema); v != nil {
		version = binary.BigEndian.Uint64(v)
	}
	if version > schemaVersion {
		return errors.Wrapf(ErrNewerSchema, "schema %d, this version knows up to %d", version, schemaVersion)
	}
	if version < 2 {
		if err := indexIdempotencyByExpiry(btx); err != nil {
			return err
		}
	}
	if version < 4 {
		if err := indexEventIDs(btx); err != nil {
			return err
		}
	}
	return errors.Wrap(meta.Put(keySchema, u64(schemaVersion)), "writing the schema version")
}

// indexEventIDs (schema 3 to 4) indexes every kept event by its id.
func indexEventIDs(btx *bbolt.Tx) error {
	ids := btx.Bucket(bucketEventIDs)
	err := btx.Bucket(bucketEvents).ForEach(func(k, v []byte) error {
		var e store.Event
		if err := json.Unmarshal(v, &e); err != nil {
			return errors.Wrap(err, "decoding an event")
		}
		return ids.Put(tuple(e.TenantID, e.ID), bytes.Clone(k))
	})
	return errors.Wrap(err, "indexing events by id")
}

// indexIdempotencyByExpiry (schema 1 to 2) indexes every idempotency record by
// its expiry and drops the index by creation time. Records of schema 1 have no
// ExpiresAt: they expire 24h after their creation (store.IdempotencyRecord.Expiry).
func indexIdempotencyByExpiry(btx *bbolt.Tx) error {
	expiries := btx.Bucket(bucketIdempotencyAt)
	err := btx.Bucket(bucketIdempotency).ForEach(func(k, v []byte) error {
		var r store.IdempotencyRecord
		if err := json.Unmarshal(v, &r); err != nil {
			return errors.Wrap(err, "decoding an idempotency record")
		}
		return expiries.Put(expiryKey(r.Expiry(), k), nil)
	})
	if err != nil {
		return errors.Wrap(err, "indexing idempotency records by expiry")
	}
	if err := btx.DeleteBucket(bucketIdempotencyAge); err != nil && !errors.Is(err, bolterrors.ErrBucketNotFound) {
		return errors.Wrap(err, "dropping the index of idempotency records by age")
	}
	return nil
}
