package store

import (
	"time"

	"github.com/integration-connect/connect"
)

// RouteTx stores route suggestions and what they are planned with:
// optimization profiles and employees. Everything is kept per tenant; another
// tenant's id is not found.
type RouteTx interface {
	// CreateRouteSuggestion stores a new suggestion and sets its ID.
	CreateRouteSuggestion(r *RouteSuggestion) error
	// PutRouteSuggestion replaces an existing suggestion (status changes).
	PutRouteSuggestion(r *RouteSuggestion) error
	// RouteSuggestion returns a suggestion of a tenant.
	RouteSuggestion(tenantID string, id int64) (*RouteSuggestion, error)
	// RouteSuggestionsForJob returns the suggestions of an import job, oldest
	// first, from an index by job.
	RouteSuggestionsForJob(tenantID string, jobID int64) ([]RouteSuggestion, error)

	// CreateProfile stores a new optimization profile and sets its ID.
	CreateProfile(p *OptimizationProfile) error
	// PutProfile replaces an existing profile.
	PutProfile(p *OptimizationProfile) error
	// Profile returns a profile of a tenant.
	Profile(tenantID string, id int64) (*OptimizationProfile, error)
	// Profiles lists a tenant's profiles by id.
	Profiles(tenantID string) ([]OptimizationProfile, error)
	// DeleteProfile removes a profile.
	DeleteProfile(tenantID string, id int64) error

	// CreateRoutePlan stores a new route plan and sets its ID; its drafts are
	// stored with CreateRouteSuggestion in the same transaction.
	CreateRoutePlan(p *RoutePlan) error
	// RoutePlan returns a route plan of a tenant.
	RoutePlan(tenantID string, id int64) (*RoutePlan, error)

	// PutEmployee stores an employee, replacing one with the same tenant and id.
	PutEmployee(e *Employee) error
	// Employee returns an employee of a tenant.
	Employee(tenantID, id string) (*Employee, error)
	// Employees lists a tenant's employees by id.
	Employees(tenantID string) ([]Employee, error)
	// DeleteEmployee removes an employee.
	DeleteEmployee(tenantID, id string) error
}

// RouteSuggestion is a route suggestion as stored.
type RouteSuggestion struct {
	TenantID string `json:"tenantId"`
	connect.RouteSuggestion
}

// RoutePlan is a route plan as stored: the plan, the ids of its drafts
// (stored as route suggestions, in the order of EmployeeIDs) and the
// targets left out.
type RoutePlan struct {
	ID                 int64                         `json:"id"`
	TenantID           string                        `json:"tenantId"`
	RouteDate          connect.Date                  `json:"routeDate"`
	Status             connect.RouteSuggestionStatus `json:"status"`
	CreatedAtUtc       time.Time                     `json:"createdAtUtc"`
	EmployeeIDs        []string                      `json:"employeeIds"`
	ImportJobIDs       []int64                       `json:"importJobIds"`
	RouteSuggestionIDs []int64                       `json:"routeSuggestionIds"`
	LeftOut            []connect.RouteExcludedItem   `json:"leftOut"`
}

// BreakRule is a pause a technician takes every day: Minutes long, starting
// between Earliest and Latest ("HH:MM", the profile's time zone).
type BreakRule struct {
	Minutes  int    `json:"minutes" validate:"between=5:240"`
	Earliest string `json:"earliest" validate:"clock"`
	Latest   string `json:"latest" validate:"clock"`
}

// OptimizationProfile is how routes of a tenant are planned: travel speed and
// detour, the working day in the tenant's time zone, and how stops are valued.
type OptimizationProfile struct {
	ID       int64  `json:"id"`
	TenantID string `json:"tenantId"`
	Name     string `json:"name" validate:"notblank,max=200"`
	// AverageSpeedKmh and DetourFactor turn great-circle distances into travel
	// times: km × DetourFactor ÷ AverageSpeedKmh.
	AverageSpeedKmh float64 `json:"averageSpeedKmh" validate:"between=1:200"`
	DetourFactor    float64 `json:"detourFactor" validate:"between=1:5"`
	// ShiftStart and ShiftEnd ("HH:MM") bound the working day in TimeZone.
	ShiftStart string `json:"shiftStart" validate:"clock"`
	ShiftEnd   string `json:"shiftEnd" validate:"clock"`
	// TimeZone is an IANA name such as Europe/Berlin.
	TimeZone string `json:"timeZone" validate:"timezone"`
	// PriorityFactors multiply a stop's value by its priority (lower-case
	// names); unknown priorities count as "normal".
	PriorityFactors map[string]int64 `json:"priorityFactors" validate:"dive,keys,notblank,endkeys,between=1:1000"`
	// RevenuePerPoint is how much expected revenue (times close probability)
	// plus customer value is worth one value point.
	RevenuePerPoint float64 `json:"revenuePerPoint" validate:"between=0.01:1000000"`
	// TravelModel is connect.TravelGreatCircle to plan with great-circle
	// estimates even when the service has a road engine; empty means the
	// service's model (the road engine when one is configured).
	TravelModel connect.TravelModel `json:"travelModel,omitempty" validate:"omitempty,oneof=greatCircle"`
	// Break is the daily pause of the employees planned with this profile
	// who have none of their own; nil for none.
	Break     *BreakRule `json:"break,omitempty"`
	CreatedAt time.Time  `json:"createdAt"`
	UpdatedAt time.Time  `json:"updatedAt"`
}

// Employee is a technician: where the day starts and ends, and the working
// hours when they differ from the profile's.
type Employee struct {
	ID       string `json:"id" validate:"notblank,max=200"`
	TenantID string `json:"tenantId"`
	Name     string `json:"name" validate:"max=500"`
	// Start is where the day starts; End where it ends (Start when nil). A nil
	// Start means the route starts at its first stop.
	Start *connect.RoutePoint `json:"start"`
	End   *connect.RoutePoint `json:"end"`
	// ShiftStart and ShiftEnd ("HH:MM", profile's time zone) override the
	// profile's working day when set.
	ShiftStart *string `json:"shiftStart" validate:"omitnil,clock"`
	ShiftEnd   *string `json:"shiftEnd" validate:"omitnil,clock"`
	// ProfileID is the profile used when a request names none.
	ProfileID *int64 `json:"profileId"`
	// Break is the employee's daily pause, in place of the profile's; nil
	// means the profile's.
	Break     *BreakRule `json:"break,omitempty"`
	CreatedAt time.Time  `json:"createdAt"`
	UpdatedAt time.Time  `json:"updatedAt"`
}
