package postgres

import (
	"github.com/cockroachdb/errors"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/store"
)

func (t *tx) CreateAppointmentRequest(r *store.AppointmentRequest) error {
	taken, err := t.exists(`SELECT 1 FROM appointment_requests WHERE tenant_id = $1 AND id = $2`, r.TenantID, r.ID)
	if err != nil {
		return err
	}
	if taken {
		return errors.AssertionFailedf("appointment request %s of tenant %s already exists", r.ID, r.TenantID)
	}
	doc, err := encode(r)
	if err != nil {
		return err
	}
	_, err = t.exec(`INSERT INTO appointment_requests (tenant_id, id, status, doc) VALUES ($1, $2, $3, $4)`, r.TenantID, r.ID, string(r.Status), doc)
	return err
}

func (t *tx) AppointmentRequest(tenantID, id string) (*store.AppointmentRequest, error) {
	return one[store.AppointmentRequest](t, `SELECT doc FROM appointment_requests WHERE tenant_id = $1 AND id = $2`+t.forUpdate(), tenantID, id)
}

func (t *tx) PutAppointmentRequest(r *store.AppointmentRequest) error {
	doc, err := encode(r)
	if err != nil {
		return err
	}
	tag, err := t.exec(`UPDATE appointment_requests SET status = $3, doc = $4 WHERE tenant_id = $1 AND id = $2`, r.TenantID, r.ID, string(r.Status), doc)
	if err == nil && tag.RowsAffected() == 0 {
		return connect.ErrNotFound
	}
	return err
}

func (t *tx) AppointmentRequests(tenantID string, status connect.AppointmentStatus, after string, limit int) ([]store.AppointmentRequest, error) {
	if limit <= 0 {
		return nil, nil
	}
	// Ids compare byte-wise (COLLATE "C"): the cursor is a key range.
	if status == "" {
		return all[store.AppointmentRequest](t, `SELECT doc FROM appointment_requests
			WHERE tenant_id = $1 AND id > $2 ORDER BY id LIMIT $3`, tenantID, after, limit)
	}
	return all[store.AppointmentRequest](t, `SELECT doc FROM appointment_requests
		WHERE tenant_id = $1 AND status = $2 AND id > $3 ORDER BY id LIMIT $4`, tenantID, string(status), after, limit)
}
