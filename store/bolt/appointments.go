package bolt

import (
	"bytes"

	"github.com/cockroachdb/errors"
	"github.com/go-json-experiment/json"
	bbolt "go.etcd.io/bbolt"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/store"
)

// appointmentKey is the tenant as a tuple followed by the raw id. The tuple
// ends where the id starts, so a tenant's requests form one key range sorted by
// id, whatever the ids' lengths.
func appointmentKey(tenantID, id string) []byte { return append(tuple(tenantID), id...) }

// appointmentStatusKey indexes a request under its current status, so a
// tenant's requests with one status form one key range sorted by id.
func appointmentStatusKey(tenantID string, status connect.AppointmentStatus, id string) []byte {
	return append(tuple(tenantID, string(status)), id...)
}

func (t *tx) CreateAppointmentRequest(r *store.AppointmentRequest) error {
	key := appointmentKey(r.TenantID, r.ID)
	if t.bucket(bucketAppointments).Get(key) != nil {
		return errors.AssertionFailedf("appointment request %s of tenant %s already exists", r.ID, r.TenantID)
	}
	if err := t.indexAppointment(r); err != nil {
		return err
	}
	return put(t.bucket(bucketAppointments), key, r)
}

func (t *tx) AppointmentRequest(tenantID, id string) (*store.AppointmentRequest, error) {
	var r store.AppointmentRequest
	if err := get(t.bucket(bucketAppointments), appointmentKey(tenantID, id), &r); err != nil {
		return nil, err
	}
	return &r, nil
}

func (t *tx) PutAppointmentRequest(r *store.AppointmentRequest) error {
	old, err := t.AppointmentRequest(r.TenantID, r.ID)
	if err != nil {
		return err
	}
	if old.Status != r.Status {
		if err := t.bucket(bucketApptStatus).Delete(appointmentStatusKey(old.TenantID, old.Status, old.ID)); err != nil {
			return errors.Wrap(err, "unindexing an appointment request")
		}
		if err := t.indexAppointment(r); err != nil {
			return err
		}
	}
	return put(t.bucket(bucketAppointments), appointmentKey(r.TenantID, r.ID), r)
}

func (t *tx) indexAppointment(r *store.AppointmentRequest) error {
	err := t.bucket(bucketApptStatus).Put(appointmentStatusKey(r.TenantID, r.Status, r.ID), nil)
	return errors.Wrap(err, "indexing an appointment request")
}

func (t *tx) AppointmentRequests(tenantID string, status connect.AppointmentStatus, after string, limit int) ([]store.AppointmentRequest, error) {
	var list []store.AppointmentRequest
	if limit <= 0 {
		return list, nil
	}
	if status == "" {
		err := scanAfter(t.bucket(bucketAppointments), tuple(tenantID), after, func(_, v []byte) (bool, error) {
			var r store.AppointmentRequest
			err := json.Unmarshal(v, &r)
			list = append(list, r)
			return len(list) < limit, errors.Wrap(err, "decoding an appointment request")
		})
		return list, err
	}
	prefix := tuple(tenantID, string(status))
	err := scanAfter(t.bucket(bucketApptStatus), prefix, after, func(k, _ []byte) (bool, error) {
		r, err := t.AppointmentRequest(tenantID, string(k[len(prefix):]))
		if err != nil {
			return false, errors.Wrap(err, "reading an indexed appointment request")
		}
		list = append(list, *r)
		return len(list) < limit, nil
	})
	return list, err
}

// scanAfter is scan over the keys starting with prefix that sort after
// prefix+after; an empty after starts at the first key of prefix.
func scanAfter(b *bbolt.Bucket, prefix []byte, after string, fn func(k, v []byte) (bool, error)) error {
	start := append(bytes.Clone(prefix), after...)
	c := b.Cursor()
	k, v := c.Seek(start)
	if after != "" && bytes.Equal(k, start) {
		k, v = c.Next()
	}
	for ; k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		more, err := fn(k, v)
		if err != nil || !more {
			return err
		}
	}
	return nil
}
