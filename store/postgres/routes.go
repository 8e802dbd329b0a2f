package postgres

import (
	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/store"
)

// Route suggestions, optimization profiles and employees: each a row with
// its tenant, so another tenant's id finds nothing.

func (t *tx) CreateRouteSuggestion(r *store.RouteSuggestion) error {
	id, err := t.nextID("route_suggestions_id_seq")
	if err != nil {
		return err
	}
	r.ID = id
	doc, err := encode(r)
	if err != nil {
		return err
	}
	_, err = t.exec(`INSERT INTO route_suggestions (id, tenant_id, job_id, doc) VALUES ($1, $2, $3, $4)`, id, r.TenantID, r.ImportJobID, doc)
	return err
}

func (t *tx) PutRouteSuggestion(r *store.RouteSuggestion) error {
	doc, err := encode(r)
	if err != nil {
		return err
	}
	return t.replace(`UPDATE route_suggestions SET doc = $3 WHERE id = $1 AND tenant_id = $2`, r.ID, r.TenantID, doc)
}

func (t *tx) RouteSuggestion(tenantID string, id int64) (*store.RouteSuggestion, error) {
	return one[store.RouteSuggestion](t, `SELECT doc FROM route_suggestions WHERE id = $1 AND tenant_id = $2`+t.forUpdate(), id, tenantID)
}

func (t *tx) RouteSuggestionsForJob(tenantID string, jobID int64) ([]store.RouteSuggestion, error) {
	return all[store.RouteSuggestion](t, `SELECT doc FROM route_suggestions WHERE tenant_id = $1 AND job_id = $2 ORDER BY id`, tenantID, jobID)
}

func (t *tx) CreateRoutePlan(p *store.RoutePlan) error {
	return t.insertNumbered("route_plans", &p.ID, p.TenantID, p)
}

func (t *tx) RoutePlan(tenantID string, id int64) (*store.RoutePlan, error) {
	return one[store.RoutePlan](t, `SELECT doc FROM route_plans WHERE id = $1 AND tenant_id = $2`, id, tenantID)
}

func (t *tx) CreateProfile(p *store.OptimizationProfile) error {
	return t.insertNumbered("optimization_profiles", &p.ID, p.TenantID, p)
}

// insertNumbered gives rec the next id of table's sequence (through id, a
// field of rec) and inserts it as a tenant's document.
func (t *tx) insertNumbered(table string, id *int64, tenantID string, rec any) error {
	n, err := t.nextID(table + "_id_seq")
	if err != nil {
		return err
	}
	*id = n
	doc, err := encode(rec)
	if err != nil {
		return err
	}
	_, err = t.exec(`INSERT INTO `+table+` (id, tenant_id, doc) VALUES ($1, $2, $3)`, n, tenantID, doc)
	return err
}

func (t *tx) PutProfile(p *store.OptimizationProfile) error {
	doc, err := encode(p)
	if err != nil {
		return err
	}
	return t.replace(`UPDATE optimization_profiles SET doc = $3 WHERE id = $1 AND tenant_id = $2`, p.ID, p.TenantID, doc)
}

func (t *tx) Profile(tenantID string, id int64) (*store.OptimizationProfile, error) {
	return one[store.OptimizationProfile](t, `SELECT doc FROM optimization_profiles WHERE id = $1 AND tenant_id = $2`+t.forUpdate(), id, tenantID)
}

func (t *tx) Profiles(tenantID string) ([]store.OptimizationProfile, error) {
	return all[store.OptimizationProfile](t, `SELECT doc FROM optimization_profiles WHERE tenant_id = $1 ORDER BY id`, tenantID)
}

func (t *tx) DeleteProfile(tenantID string, id int64) error {
	return t.replace(`DELETE FROM optimization_profiles WHERE id = $1 AND tenant_id = $2`, id, tenantID)
}

func (t *tx) PutEmployee(e *store.Employee) error {
	doc, err := encode(e)
	if err != nil {
		return err
	}
	_, err = t.exec(`INSERT INTO employees (tenant_id, id, doc) VALUES ($1, $2, $3)
		ON CONFLICT (tenant_id, id) DO UPDATE SET doc = EXCLUDED.doc`, e.TenantID, e.ID, doc)
	return err
}

func (t *tx) Employee(tenantID, id string) (*store.Employee, error) {
	return one[store.Employee](t, `SELECT doc FROM employees WHERE tenant_id = $1 AND id = $2`+t.forUpdate(), tenantID, id)
}

func (t *tx) Employees(tenantID string) ([]store.Employee, error) {
	return all[store.Employee](t, `SELECT doc FROM employees WHERE tenant_id = $1 ORDER BY id`, tenantID)
}

func (t *tx) DeleteEmployee(tenantID, id string) error {
	return t.replace(`DELETE FROM employees WHERE tenant_id = $1 AND id = $2`, tenantID, id)
}

// replace runs an UPDATE or DELETE of one existing record and answers
// connect.ErrNotFound when there was none.
func (t *tx) replace(sql string, args ...any) error {
	tag, err := t.exec(sql, args...)
	if err == nil && tag.RowsAffected() == 0 {
		return connect.ErrNotFound
	}
	return err
}
