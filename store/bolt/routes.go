package bolt

import (
	"slices"
	"strings"

	"github.com/cockroachdb/errors"
	"github.com/go-json-experiment/json"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/store"
)

// Route suggestions are kept by id with an index by (tenant, job); profiles and
// employees under their tenant, so a list is one range and another tenant's id
// finds nothing.

func suggestionJobKey(tenantID string, jobID, id int64) []byte {
	return append(append(tuple(tenantID), idKey(jobID)...), idKey(id)...)
}

func (t *tx) CreateRouteSuggestion(r *store.RouteSuggestion) error {
	id, err := nextID(t.bucket(bucketRouteSuggestions))
	if err != nil {
		return err
	}
	r.ID = id
	if err := t.bucket(bucketRouteSuggestionsByJob).Put(suggestionJobKey(r.TenantID, r.ImportJobID, id), nil); err != nil {
		return errors.Wrap(err, "indexing a route suggestion")
	}
	return put(t.bucket(bucketRouteSuggestions), idKey(id), r)
}

func (t *tx) PutRouteSuggestion(r *store.RouteSuggestion) error {
	if _, err := t.RouteSuggestion(r.TenantID, r.ID); err != nil {
		return err
	}
	return put(t.bucket(bucketRouteSuggestions), idKey(r.ID), r)
}

func (t *tx) RouteSuggestion(tenantID string, id int64) (*store.RouteSuggestion, error) {
	return getOwned(t.bucket(bucketRouteSuggestions), id, tenantID, func(r *store.RouteSuggestion) string { return r.TenantID })
}

func (t *tx) RouteSuggestionsForJob(tenantID string, jobID int64) ([]store.RouteSuggestion, error) {
	prefix := append(tuple(tenantID), idKey(jobID)...)
	var list []store.RouteSuggestion
	err := scan(t.bucket(bucketRouteSuggestionsByJob), prefix, func(k, _ []byte) (bool, error) {
		var r store.RouteSuggestion
		err := get(t.bucket(bucketRouteSuggestions), k[len(prefix):], &r)
		list = append(list, r)
		return true, err
	})
	return list, err
}

func (t *tx) CreateRoutePlan(p *store.RoutePlan) error {
	id, err := nextID(t.bucket(bucketRoutePlans))
	if err != nil {
		return err
	}
	p.ID = id
	return put(t.bucket(bucketRoutePlans), idKey(id), p)
}

func (t *tx) RoutePlan(tenantID string, id int64) (*store.RoutePlan, error) {
	return getOwned(t.bucket(bucketRoutePlans), id, tenantID, func(p *store.RoutePlan) string { return p.TenantID })
}

func profileKey(tenantID string, id int64) []byte { return append(tuple(tenantID), idKey(id)...) }

func (t *tx) CreateProfile(p *store.OptimizationProfile) error {
	id, err := nextID(t.bucket(bucketProfiles))
	if err != nil {
		return err
	}
	p.ID = id
	return put(t.bucket(bucketProfiles), profileKey(p.TenantID, id), p)
}

func (t *tx) PutProfile(p *store.OptimizationProfile) error {
	if _, err := t.Profile(p.TenantID, p.ID); err != nil {
		return err
	}
	return put(t.bucket(bucketProfiles), profileKey(p.TenantID, p.ID), p)
}

func (t *tx) Profile(tenantID string, id int64) (*store.OptimizationProfile, error) {
	var p store.OptimizationProfile
	if err := get(t.bucket(bucketProfiles), profileKey(tenantID, id), &p); err != nil {
		return nil, err
	}
	return &p, nil
}

func (t *tx) Profiles(tenantID string) ([]store.OptimizationProfile, error) {
	return list[store.OptimizationProfile](t, bucketProfiles, tuple(tenantID))
}

func (t *tx) DeleteProfile(tenantID string, id int64) error {
	return remove(t, bucketProfiles, profileKey(tenantID, id))
}

func (t *tx) PutEmployee(e *store.Employee) error {
	return put(t.bucket(bucketEmployees), tuple(e.TenantID, e.ID), e)
}

func (t *tx) Employee(tenantID, id string) (*store.Employee, error) {
	var e store.Employee
	if err := get(t.bucket(bucketEmployees), tuple(tenantID, id), &e); err != nil {
		return nil, err
	}
	return &e, nil
}

func (t *tx) Employees(tenantID string) ([]store.Employee, error) {
	employees, err := list[store.Employee](t, bucketEmployees, tuple(tenantID))
	// Tuple keys sort by length first; the list is documented in id order.
	slices.SortFunc(employees, func(a, b store.Employee) int { return strings.Compare(a.ID, b.ID) })
	return employees, err
}

func (t *tx) DeleteEmployee(tenantID, id string) error {
	return remove(t, bucketEmployees, tuple(tenantID, id))
}

// list decodes every record of bucket whose key starts with prefix.
func list[T any](t *tx, bucket []byte, prefix []byte) ([]T, error) {
	var records []T
	err := scan(t.bucket(bucket), prefix, func(_, v []byte) (bool, error) {
		var r T
		err := json.Unmarshal(v, &r)
		records = append(records, r)
		return true, errors.Wrap(err, "decoding a record")
	})
	return records, err
}

// remove deletes the record under key, or answers connect.ErrNotFound.
func remove(t *tx, bucket, key []byte) error {
	b := t.bucket(bucket)
	if b.Get(key) == nil {
		return connect.ErrNotFound
	}
	return errors.Wrap(b.Delete(key), "deleting a record")
}
