package routesuggest

import (
	"context"
	"maps"
	"strings"
	"time"

	"github.com/cockroachdb/errors"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/store"
)

// DefaultProfile is how routes are planned when neither the request nor the
// employee names a profile: 40 km/h on average, roads 30% longer than the
// great-circle distance, a working day from 08:00 to 17:00 UTC, and the default
// value weights.
func DefaultProfile() store.OptimizationProfile {
	return store.OptimizationProfile{
		Name: "Default", AverageSpeedKmh: 40, DetourFactor: 1.3, ShiftStart: "08:00", ShiftEnd: "17:00",
		TimeZone: "UTC", PriorityFactors: DefaultPriorityFactors(), RevenuePerPoint: 10,
	}
}

// DefaultPriorityFactors weigh a stop's value by its priority: low 1, normal 2,
// high 4, urgent and critical 8. An unknown priority counts as normal.
func DefaultPriorityFactors() map[string]int64 {
	return map[string]int64{"low": 1, "normal": 2, "high": 4, "urgent": 8, "critical": 8}
}

// withDefaults fills the zero fields of a new profile from DefaultProfile.
func withDefaults(p store.OptimizationProfile) store.OptimizationProfile {
	d := DefaultProfile()
	if p.AverageSpeedKmh == 0 {
		p.AverageSpeedKmh = d.AverageSpeedKmh
	}
	if p.DetourFactor == 0 {
		p.DetourFactor = d.DetourFactor
	}
	p.ShiftStart = firstNonEmpty(p.ShiftStart, d.ShiftStart)
	p.ShiftEnd = firstNonEmpty(p.ShiftEnd, d.ShiftEnd)
	p.TimeZone = firstNonEmpty(p.TimeZone, d.TimeZone)
	if p.PriorityFactors == nil {
		p.PriorityFactors = d.PriorityFactors
	}
	if p.RevenuePerPoint == 0 {
		p.RevenuePerPoint = d.RevenuePerPoint
	}
	return p
}

func firstNonEmpty(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}

// checkProfile validates a profile: bounds, a known time zone, and a working
// day that ends after it starts.
func checkProfile(p store.OptimizationProfile) error {
	if err := connect.Validate(p); err != nil {
		return err
	}
	start, _ := connect.ParseClock(p.ShiftStart)
	end, _ := connect.ParseClock(p.ShiftEnd)
	if end <= start {
		return connect.Errorf(connect.CodeInvalidRequest, "shiftEnd must be after shiftStart")
	}
	return checkBreak(p.Break)
}

// checkBreak checks what tags cannot say of a break rule: it may start no
// later than it may start at the latest.
func checkBreak(b *store.BreakRule) error {
	if b == nil {
		return nil
	}
	earliest, _ := connect.ParseClock(b.Earliest)
	latest, _ := connect.ParseClock(b.Latest)
	if latest < earliest {
		return connect.Errorf(connect.CodeInvalidRequest, "break.latest is %s, before break.earliest %s", b.Latest, b.Earliest)
	}
	return nil
}

// CreateProfile stores a new optimization profile of a tenant; zero fields take
// the values of DefaultProfile. Priority names are matched in lower case.
// Errors: InvalidRequest naming the field.
func (s *Service) CreateProfile(ctx context.Context, tenantID string, p store.OptimizationProfile) (store.OptimizationProfile, error) {
	if err := checkTenant(tenantID); err != nil {
		return p, err
	}
	p = withDefaults(p)
	p.TenantID, p.CreatedAt, p.UpdatedAt = tenantID, s.now(), s.now()
	p.PriorityFactors = lowerKeys(p.PriorityFactors)
	if err := checkProfile(p); err != nil {
		return p, err
	}
	err := s.cfg.Store.Update(ctx, func(tx store.Tx) error { return tx.CreateProfile(&p) })
	return p, err
}

// UpdateProfile replaces the optimization profile p.ID of a tenant, keeping
// when it was created; zero fields take the values of DefaultProfile, as in
// CreateProfile. Suggestions already made keep the times they were planned
// with. Errors: InvalidRequest naming the field, NotFound.
func (s *Service) UpdateProfile(ctx context.Context, tenantID string, p store.OptimizationProfile) (store.OptimizationProfile, error) {
	if err := checkTenant(tenantID); err != nil {
		return p, err
	}
	p = withDefaults(p)
	p.TenantID, p.UpdatedAt = tenantID, s.now()
	p.PriorityFactors = lowerKeys(p.PriorityFactors)
	if err := checkProfile(p); err != nil {
		return p, err
	}
	err := s.cfg.Store.Update(ctx, func(tx store.Tx) error {
		old, err := tx.Profile(tenantID, p.ID)
		if err != nil {
			return err
		}
		p.CreatedAt = old.CreatedAt
		return tx.PutProfile(&p)
	})
	if errors.Is(err, connect.ErrNotFound) {
		return p, connect.Errorf(connect.CodeNotFound, "tenant %q has no optimization profile %d", tenantID, p.ID)
	}
	return p, err
}

// Profiles lists a tenant's optimization profiles by id.
func (s *Service) Profiles(ctx context.Context, tenantID string) ([]store.OptimizationProfile, error) {
	var list []store.OptimizationProfile
	err := s.cfg.Store.View(ctx, func(tx store.Tx) (err error) {
		list, err = tx.Profiles(tenantID)
		return err
	})
	return list, err
}

// DeleteProfile removes a profile. Suggestions made with it keep its id.
// Errors: NotFound.
func (s *Service) DeleteProfile(ctx context.Context, tenantID string, id int64) error {
	err := s.cfg.Store.Update(ctx, func(tx store.Tx) error { return tx.DeleteProfile(tenantID, id) })
	if errors.Is(err, connect.ErrNotFound) {
		return connect.Errorf(connect.CodeNotFound, "tenant %q has no optimization profile %d", tenantID, id)
	}
	return err
}

// PutEmployee creates or replaces an employee of a tenant. Its profile, when
// named, must exist. Errors: InvalidRequest naming the field, NotFound.
func (s *Service) PutEmployee(ctx context.Context, tenantID string, e store.Employee) (store.Employee, error) {
	if err := checkTenant(tenantID); err != nil {
		return e, err
	}
	e.TenantID, e.UpdatedAt = tenantID, s.now()
	if err := checkEmployee(e); err != nil {
		return e, err
	}
	err := s.cfg.Store.Update(ctx, func(tx store.Tx) error {
		old, err := tx.Employee(tenantID, e.ID)
		switch {
		case err == nil:
			e.CreatedAt = old.CreatedAt
		case errors.Is(err, connect.ErrNotFound):
			e.CreatedAt = e.UpdatedAt
		default:
			return err
		}
		if e.ProfileID != nil {
			_, err := tx.Profile(tenantID, *e.ProfileID)
			if errors.Is(err, connect.ErrNotFound) {
				return connect.Errorf(connect.CodeNotFound, "tenant %q has no optimization profile %d", tenantID, *e.ProfileID)
			}
			if err != nil {
				return err
			}
		}
		return tx.PutEmployee(&e)
	})
	return e, err
}

func checkEmployee(e store.Employee) error {
	if err := connect.Validate(e); err != nil {
		return err
	}
	for name, p := range map[string]*connect.RoutePoint{"start": e.Start, "end": e.End} {
		if p != nil && (p.Latitude < -90 || p.Latitude > 90 || p.Longitude < -180 || p.Longitude > 180) {
			return connect.Errorf(connect.CodeInvalidRequest, "%s must have a latitude between -90 and 90 and a longitude between -180 and 180", name)
		}
	}
	if e.End != nil && e.Start == nil {
		return connect.Errorf(connect.CodeInvalidRequest, "end needs a start")
	}
	return checkBreak(e.Break)
}

// Employees lists a tenant's employees by id.
func (s *Service) Employees(ctx context.Context, tenantID string) ([]store.Employee, error) {
	var list []store.Employee
	err := s.cfg.Store.View(ctx, func(tx store.Tx) (err error) {
		list, err = tx.Employees(tenantID)
		return err
	})
	return list, err
}

// DeleteEmployee removes an employee. Errors: NotFound.
func (s *Service) DeleteEmployee(ctx context.Context, tenantID, id string) error {
	err := s.cfg.Store.Update(ctx, func(tx store.Tx) error { return tx.DeleteEmployee(tenantID, id) })
	if errors.Is(err, connect.ErrNotFound) {
		return connect.Errorf(connect.CodeNotFound, "tenant %q has no employee %q", tenantID, id)
	}
	return err
}

func lowerKeys(m map[string]int64) map[string]int64 {
	out := make(map[string]int64, len(m))
	for k, v := range maps.All(m) {
		out[strings.ToLower(strings.TrimSpace(k))] = v
	}
	return out
}

func checkTenant(tenantID string) error {
	if strings.TrimSpace(tenantID) == "" {
		return connect.Errorf(connect.CodeInvalidRequest, "a tenant is required")
	}
	return nil
}

// location returns the profile's time zone.
func location(p store.OptimizationProfile) (*time.Location, error) {
	loc, err := time.LoadLocation(p.TimeZone)
	if err != nil {
		return nil, errors.Wrapf(err, "time zone of optimization profile %d", p.ID)
	}
	return loc, nil
}
