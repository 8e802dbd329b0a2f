// Package connect is the vocabulary of Integration Connect: the resources of the
// specification as Go types, the caller identity with its scopes, the one error
// type every package returns, and the service interfaces that the feature
// packages implement (Importer, JobStore, RouteSuggester, ClientRegistry,
// AppointmentService, WebhookSubscriptionService). Its sections, in order:
// callers and scopes; errors; dates; the resources, one section each; the
// service interfaces, every method with the error codes it returns; and last
// the mechanism every request goes through: reading JSON within bounds,
// decoding and encoding it, and validation.
//
// JSON names match the specification exactly (case-sensitive camelCase). Nullable
// fields are pointers and encode as null when unset. Date-times are RFC 3339 in UTC;
// calendar dates are Date values written YYYY-MM-DD. The bounds of the
// specification and of DECISIONS.md are written down once: in the `validate` tags,
// checked by Validate, or, for counts enforced while a request is read, in the
// Max… constants beside the types they bound.
//
// This package imports nothing from the rest of the module, so every other package
// (and every embedding host application) can depend on it.
package connect

import (
	"bytes"
	"context"
	"fmt"
	"hash/maphash"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/cockroachdb/errors"
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/go-playground/validator/v10"
	"github.com/go-playground/validator/v10/non-standard/validators"
)

// ---------------------------------------------------------------------------
// Callers and scopes

// Scope is a permission held by an API key.
type Scope string

// The scopes of the specification, plus the two of the appointment preview.
const (
	ScopeHealthRead               Scope = "integration.health.read"
	ScopeTargetsWrite             Scope = "inbound.targets.write"
	ScopeTargetsBatchWrite        Scope = "inbound.targets.batch.write"
	ScopeCustomersMap             Scope = "customers.map"
	ScopeImportJobsRead           Scope = "import_jobs.read"
	ScopeRouteSuggestionsCreate   Scope = "route_suggestions.create"
	ScopeAppointmentRequestsWrite Scope = "appointment_requests.write"
	ScopeAppointmentRequestsRead  Scope = "appointment_requests.read"
	// ScopeWebhooksManage lets a client manage its tenant's webhook
	// subscriptions: create, list, read, delete, rotate their secrets.
	ScopeWebhooksManage Scope = "webhooks.manage"
	// ScopeEventsRead lets a client read its tenant's events feed: every
	// event of the retention period, whether or not a subscription wants it.
	ScopeEventsRead Scope = "events.read"
)

// AllScopes lists every scope a key can hold, in documentation order.
var AllScopes = []Scope{
	ScopeHealthRead, ScopeTargetsWrite, ScopeTargetsBatchWrite, ScopeCustomersMap,
	ScopeImportJobsRead, ScopeRouteSuggestionsCreate,
	ScopeAppointmentRequestsWrite, ScopeAppointmentRequestsRead,
	ScopeWebhooksManage, ScopeEventsRead,
}

// Required is the scope each operation of the services needs: the one place
// that says it. The services check it on every call (Caller.RequireScope),
// so an embedded host gets the same refusals as an HTTP client; httpapi's
// route table names the same fields, so an HTTP caller without the scope is
// refused before its body is read. Treat it as a constant.
var Required = struct {
	Health, ImportTarget, ImportBatch, ReadJobs            Scope
	CreateRouteSuggestion, ReadRouteSuggestions            Scope
	CreateRoutePlan, ReadRoutePlans                        Scope
	SubmitAppointment, ReadAppointments, CancelAppointment Scope
	// MapCustomers links a target's or request's customer, location and
	// contact to customer records; without it they are not linked.
	MapCustomers, ManageWebhooks Scope
	ReadEvents                   Scope
}{
	Health:                ScopeHealthRead,
	ImportTarget:          ScopeTargetsWrite,
	ImportBatch:           ScopeTargetsBatchWrite,
	ReadJobs:              ScopeImportJobsRead,
	CreateRouteSuggestion: ScopeRouteSuggestionsCreate,
	ReadRouteSuggestions:  ScopeImportJobsRead,
	CreateRoutePlan:       ScopeRouteSuggestionsCreate,
	ReadRoutePlans:        ScopeImportJobsRead,
	SubmitAppointment:     ScopeAppointmentRequestsWrite,
	ReadAppointments:      ScopeAppointmentRequestsRead,
	CancelAppointment:     ScopeAppointmentRequestsWrite,
	MapCustomers:          ScopeCustomersMap,
	ManageWebhooks:        ScopeWebhooksManage,
	ReadEvents:            ScopeEventsRead,
}

// ParseScopes turns a comma-separated list ("a,b,c") into scopes, refusing unknown
// names so a typo never yields a key that silently lacks a permission.
func ParseScopes(list string) ([]Scope, error) {
	var scopes []Scope
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		scope := Scope(name)
		if !isKnownScope(scope) {
			return nil, Errorf(CodeInvalidRequest, "unknown scope %s; known scopes: %s", Quote(name), joinScopes(AllScopes))
		}
		scopes = append(scopes, scope)
	}
	if len(scopes) == 0 {
		return nil, Errorf(CodeInvalidRequest, "at least one scope is required; known scopes: %s", joinScopes(AllScopes))
	}
	return scopes, nil
}

// CheckScopes refuses an empty list of scopes or one holding an unknown
// scope, naming it, as the scopes of a client.
func CheckScopes(scopes []Scope) error {
	if len(scopes) == 0 {
		return Errorf(CodeInvalidRequest, "scopes is required: at least one of %s", joinScopes(AllScopes))
	}
	for i, scope := range scopes {
		if !isKnownScope(scope) {
			return Errorf(CodeInvalidRequest, "scopes[%d] is %s, an unknown scope; known scopes: %s", i, Quote(string(scope)), joinScopes(AllScopes))
		}
	}
	return nil
}

func isKnownScope(s Scope) bool {
	for _, known := range AllScopes {
		if s == known {
			return true
		}
	}
	return false
}

func joinScopes(scopes []Scope) string {
	names := make([]string, len(scopes))
	for i, s := range scopes {
		names[i] = string(s)
	}
	return strings.Join(names, ",")
}

// Caller is the authenticated identity on whose behalf a library call runs: the
// Integration Client behind an API key. Every service call takes one; data is always
// scoped to Caller.TenantID.
type Caller struct {
	TenantID     string
	ClientID     string
	SourceSystem string
	Scopes       []Scope
}

// HasScope reports whether the caller holds scope.
func (c Caller) HasScope(scope Scope) bool {
	for _, s := range c.Scopes {
		if s == scope {
			return true
		}
	}
	return false
}

// RequireScope returns an InsufficientScope error naming scope when the caller
// lacks it. Services call it first, so embedded hosts get the same refusal as HTTP.
func (c Caller) RequireScope(scope Scope) error {
	if c.HasScope(scope) {
		return nil
	}
	return &Error{Code: CodeInsufficientScope, Message: fmt.Sprintf("the API key lacks the scope %s", scope), RequiredScope: scope}
}

// ---------------------------------------------------------------------------
// Errors

// ErrorCode is the PascalCase code of an error, as sent to integrators in
// ApiErrorResponse.error.code or in an import item's errorCode.
type ErrorCode string

// Request-level error codes (DECISIONS.md "Errors").
const (
	CodeInvalidRequest         ErrorCode = "InvalidRequest"
	CodeUnauthorized           ErrorCode = "Unauthorized"
	CodeInsufficientScope      ErrorCode = "InsufficientScope"
	CodeNotFound               ErrorCode = "NotFound"
	CodeMethodNotAllowed       ErrorCode = "MethodNotAllowed"
	CodeIdempotencyKeyReused   ErrorCode = "IdempotencyKeyReused"
	CodeIdempotencyKeyInUse    ErrorCode = "IdempotencyKeyInUse"
	CodeInvalidStateTransition ErrorCode = "InvalidStateTransition"
	CodePayloadTooLarge        ErrorCode = "PayloadTooLarge"
	CodeRateLimited            ErrorCode = "RateLimited"
	CodeInternalError          ErrorCode = "InternalError"
	// CodeServiceUnavailable: something the request needs is down for now
	// (the road engine): a retry after RetryAfter may succeed.
	CodeServiceUnavailable ErrorCode = "ServiceUnavailable"
)

// Item-level error codes of an import (InboundImportItemResult.errorCode).
const (
	CodeValidationFailed    ErrorCode = "ValidationFailed"
	CodeTargetAlreadyExists ErrorCode = "TargetAlreadyExists"
	CodeTargetNotFound      ErrorCode = "TargetNotFound"
	CodeTargetCancelled     ErrorCode = "TargetCancelled"
)

// Error is the one error type of Integration Connect. Every error a service returns
// to its caller is, or wraps, an *Error; anything else is an internal fault and is
// reported as InternalError without details.
type Error struct {
	Code    ErrorCode
	Message string
	// RequiredScope is set on InsufficientScope.
	RequiredScope Scope
	// RetryAfter is set on RateLimited.
	RetryAfter time.Duration
}

// Error implements error.
func (e *Error) Error() string { return string(e.Code) + ": " + e.Message }

// Is makes errors.Is(err, ErrNotFound) (and the other sentinels) match any *Error
// with the same code, whatever its message.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// Sentinels for errors.Is; they carry only a code.
var (
	ErrInvalidRequest         = &Error{Code: CodeInvalidRequest, Message: "invalid request"}
	ErrUnauthorized           = &Error{Code: CodeUnauthorized, Message: "missing, unknown or revoked API key"}
	ErrInsufficientScope      = &Error{Code: CodeInsufficientScope, Message: "insufficient scope"}
	ErrNotFound               = &Error{Code: CodeNotFound, Message: "not found"}
	ErrIdempotencyKeyReused   = &Error{Code: CodeIdempotencyKeyReused, Message: "idempotency key reused"}
	ErrIdempotencyKeyInUse    = &Error{Code: CodeIdempotencyKeyInUse, Message: "idempotency key in use"}
	ErrInvalidStateTransition = &Error{Code: CodeInvalidStateTransition, Message: "invalid state transition"}
	ErrPayloadTooLarge        = &Error{Code: CodePayloadTooLarge, Message: "payload too large"}
)

// Errorf returns an *Error with code and a formatted message.
func Errorf(code ErrorCode, format string, args ...any) error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// AsError returns the *Error inside err, or nil when err is nil or an internal fault.
func AsError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return nil
}

// ErrorCodeOf returns err's code: "" for nil, InternalError for anything that is
// not an *Error.
func ErrorCodeOf(err error) ErrorCode {
	if err == nil {
		return ""
	}
	if e := AsError(err); e != nil {
		return e.Code
	}
	return CodeInternalError
}

// ApiErrorResponse is the body of every error answer of the HTTP host.
type ApiErrorResponse struct {
	Error ApiError `json:"error"`
}

// ApiError is the error object inside ApiErrorResponse.
type ApiError struct {
	Code              ErrorCode `json:"code"`
	Message           string    `json:"message"`
	RequiredScope     *Scope    `json:"requiredScope"`
	RetryAfterSeconds *int      `json:"retryAfterSeconds"`
	CorrelationID     *string   `json:"correlationId"`
}

// MaxQuoted is the most characters of a sent value that an error message
// quotes or a rejected item's result keeps (DECISIONS.md "Bounded cost of
// every request").
const MaxQuoted = 200

// Cut returns s, made valid UTF-8, cut to MaxQuoted characters followed by
// "…" when it is longer: how a sent value appears in messages and results.
func Cut(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if utf8.RuneCountInString(s) <= MaxQuoted {
		return s
	}
	i := 0
	for n := 0; n < MaxQuoted; n++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i] + "…"
}

// Quote is Cut(s) in double quotes, with Go escapes, for error messages.
func Quote(s string) string { return strconv.Quote(Cut(s)) }

// ---------------------------------------------------------------------------
// Dates

// Date is a calendar date without a time zone, written YYYY-MM-DD in JSON.
type Date struct {
	Year  int
	Month time.Month
	Day   int
}

const dateLayout = "2006-01-02"

// ParseDate parses YYYY-MM-DD.
func ParseDate(s string) (Date, error) {
	t, err := time.Parse(dateLayout, s)
	if err != nil {
		return Date{}, errors.Newf("%q is not a date in the form YYYY-MM-DD", s)
	}
	return DateOf(t), nil
}

// DateOf returns the calendar date of t in t's location.
func DateOf(t time.Time) Date {
	y, m, d := t.Date()
	return Date{Year: y, Month: m, Day: d}
}

// IsZero reports whether d is the zero Date.
func (d Date) IsZero() bool { return d == Date{} }

// String returns YYYY-MM-DD.
func (d Date) String() string { return fmt.Sprintf("%04d-%02d-%02d", d.Year, d.Month, d.Day) }

// In returns the first instant of d in loc.
func (d Date) In(loc *time.Location) time.Time {
	return time.Date(d.Year, d.Month, d.Day, 0, 0, 0, 0, loc)
}

// MarshalText implements encoding.TextMarshaler.
func (d Date) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (d *Date) UnmarshalText(b []byte) error {
	parsed, err := ParseDate(string(b))
	if err != nil {
		return err
	}
	*d = parsed
	return nil
}

// ---------------------------------------------------------------------------
// Integration health

// IntegrationHealthResponse answers GET /integration/health: proof that the key works.
type IntegrationHealthResponse struct {
	Status        string    `json:"status"`
	TenantID      string    `json:"tenantId"`
	ClientID      string    `json:"clientId"`
	SourceSystem  string    `json:"sourceSystem"`
	ServerTimeUtc time.Time `json:"serverTimeUtc"`
}

// Health returns the health answer for caller at now.
func Health(caller Caller, now time.Time) IntegrationHealthResponse {
	return IntegrationHealthResponse{
		Status: "Healthy", TenantID: caller.TenantID, ClientID: caller.ClientID,
		SourceSystem: caller.SourceSystem, ServerTimeUtc: now.UTC(),
	}
}

// ---------------------------------------------------------------------------
// Inbound targets and import results

// Operation says what an import does with a target.
type Operation string

// The operations of an import. An absent operation means OperationUpsert.
const (
	OperationCreate Operation = "create"
	OperationUpdate Operation = "update"
	OperationUpsert Operation = "upsert"
	OperationCancel Operation = "cancel"
)

// Operations lists the operations of an import in documentation order: the
// one place they are listed.
var Operations = []Operation{OperationCreate, OperationUpdate, OperationUpsert, OperationCancel}

// Valid reports whether o is one of Operations.
func (o Operation) Valid() bool { return slices.Contains(Operations, o) }

// UnknownOperation is the message refusing an operation that is not one of
// Operations at path.
func UnknownOperation(path string) string {
	names := make([]string, len(Operations))
	for i, o := range Operations {
		names[i] = string(o)
	}
	return path + " must be one of: " + strings.Join(names, ", ")
}

// MaxCustomFields is the most entries a target's customFields may have. It is
// enforced while a target is read, before anything is decoded (importer).
const MaxCustomFields = 100

// InboundTarget is one work target pushed by a source system: the body of a single
// import and an element of a batch's targets.
type InboundTarget struct {
	SourceSystem  *string                     `json:"sourceSystem" validate:"omitnil,notblank,max=200"`
	ExternalID    string                      `json:"externalId" validate:"notblank,max=200"`
	ExternalType  *string                     `json:"externalType" validate:"omitnil,max=500"`
	Operation     Operation                   `json:"operation,omitempty" validate:"omitempty,operation"`
	TemplateKey   *string                     `json:"templateKey" validate:"omitnil,max=500"`
	Title         string                      `json:"title" validate:"notblank,max=500"`
	Description   *string                     `json:"description" validate:"omitnil,max=10000"`
	Customer      *InboundTargetCustomer      `json:"customer,omitempty"`
	Location      *InboundTargetLocation      `json:"location,omitempty"`
	Contact       *InboundTargetContact       `json:"contact,omitempty"`
	Address       *InboundTargetAddress       `json:"address,omitempty"`
	Planning      *InboundTargetPlanning      `json:"planning,omitempty"`
	BusinessValue *InboundTargetBusinessValue `json:"businessValue,omitempty"`
	CustomFields  map[string]*string          `json:"customFields,omitempty" validate:"omitempty,dive,keys,membername=100,endkeys,omitnil,max=2000"`
}

// InboundTargetCustomer is the customer context of a target, used by customer
// mapping. CustomerNumber is kept on the customer record, never on the target.
type InboundTargetCustomer struct {
	ExternalID     *string `json:"externalId" validate:"omitnil,max=500"`
	CustomerNumber *string `json:"customerNumber" validate:"omitnil,max=500"`
	Name           *string `json:"name" validate:"omitnil,max=500"`
	Type           *string `json:"type" validate:"omitnil,max=500"`
	Industry       *string `json:"industry" validate:"omitnil,max=500"`
	Email          *string `json:"email" validate:"omitnil,max=500,email"`
	Phone          *string `json:"phone" validate:"omitnil,max=500"`
	Website        *string `json:"website" validate:"omitnil,max=500,url"`
}

// InboundTargetLocation is the customer location where the work happens.
type InboundTargetLocation struct {
	ExternalID                  *string  `json:"externalId" validate:"omitnil,max=500"`
	Name                        *string  `json:"name" validate:"omitnil,max=500"`
	Type                        *string  `json:"type" validate:"omitnil,max=500"`
	Street                      *string  `json:"street" validate:"omitnil,max=500"`
	PostalCode                  *string  `json:"postalCode" validate:"omitnil,max=500"`
	City                        *string  `json:"city" validate:"omitnil,max=500"`
	Region                      *string  `json:"region" validate:"omitnil,max=500"`
	Country                     *string  `json:"country" validate:"omitnil,max=500"`
	Latitude                    *float64 `json:"latitude" validate:"omitnil,between=-90:90"`
	Longitude                   *float64 `json:"longitude" validate:"omitnil,between=-180:180"`
	DefaultEstimatedWorkMinutes *int     `json:"defaultEstimatedWorkMinutes" validate:"omitnil,between=5:480"`
	DefaultPriority             *string  `json:"defaultPriority" validate:"omitnil,max=500"`
	AccessNotes                 *string  `json:"accessNotes" validate:"omitnil,max=500"`
	ParkingNotes                *string  `json:"parkingNotes" validate:"omitnil,max=500"`
}

// InboundTargetContact is the person to talk to about a target.
type InboundTargetContact struct {
	ExternalID             *string `json:"externalId" validate:"omitnil,max=500"`
	FirstName              *string `json:"firstName" validate:"omitnil,max=500"`
	LastName               *string `json:"lastName" validate:"omitnil,max=500"`
	DisplayName            *string `json:"displayName" validate:"omitnil,max=500"`
	Role                   *string `json:"role" validate:"omitnil,max=500"`
	Department             *string `json:"department" validate:"omitnil,max=500"`
	Email                  *string `json:"email" validate:"omitnil,max=500,email"`
	Phone                  *string `json:"phone" validate:"omitnil,max=500"`
	Mobile                 *string `json:"mobile" validate:"omitnil,max=500"`
	PreferredContactMethod *string `json:"preferredContactMethod" validate:"omitnil,max=500"`
}

// InboundTargetAddress is the target's own address, when it differs from (or
// replaces) a customer location.
type InboundTargetAddress struct {
	Street     *string  `json:"street" validate:"omitnil,max=500"`
	PostalCode *string  `json:"postalCode" validate:"omitnil,max=500"`
	City       *string  `json:"city" validate:"omitnil,max=500"`
	Country    *string  `json:"country" validate:"omitnil,max=500"`
	Latitude   *float64 `json:"latitude" validate:"omitnil,between=-90:90"`
	Longitude  *float64 `json:"longitude" validate:"omitnil,between=-180:180"`
}

// InboundTargetPlanning holds when and how long the work should happen.
// TimeWindowStartUtc must be before TimeWindowEndUtc when both are given.
type InboundTargetPlanning struct {
	RouteDate            *Date      `json:"routeDate"`
	DueAtUtc             *time.Time `json:"dueAtUtc"`
	TimeWindowStartUtc   *time.Time `json:"timeWindowStartUtc"`
	TimeWindowEndUtc     *time.Time `json:"timeWindowEndUtc"`
	EstimatedWorkMinutes *int       `json:"estimatedWorkMinutes" validate:"omitnil,between=5:480"`
	Priority             *string    `json:"priority" validate:"omitnil,max=500"`
	FixedTime            *bool      `json:"fixedTime"`
}

// InboundTargetBusinessValue tells how much a target is worth; route suggestions
// prefer valuable targets when not all fit a day.
type InboundTargetBusinessValue struct {
	ExpectedRevenue  *float64 `json:"expectedRevenue"`
	CustomerValue    *float64 `json:"customerValue"`
	CloseProbability *float64 `json:"closeProbability" validate:"omitnil,between=0:1"`
	CustomerTier     *string  `json:"customerTier" validate:"omitnil,max=500"`
	Weight           *int     `json:"weight"`
}

// InboundTargetBatch is the body of a batch import.
type InboundTargetBatch struct {
	SourceSystem *string         `json:"sourceSystem" validate:"omitnil,notblank,max=200"`
	BatchID      *string         `json:"batchId" validate:"omitnil,max=500"`
	Operation    Operation       `json:"operation,omitempty" validate:"omitempty,operation"`
	Targets      []InboundTarget `json:"targets"`
}

// ItemStatus is the outcome of one imported target.
type ItemStatus string

// Item statuses (DECISIONS.md "Imports").
const (
	ItemImported  ItemStatus = "Imported"
	ItemUpdated   ItemStatus = "Updated"
	ItemCancelled ItemStatus = "Cancelled"
	ItemRejected  ItemStatus = "Rejected"
)

// JobStatus is the outcome of a whole import job.
type JobStatus string

// Job statuses: Accepted when no item was rejected, Rejected when every item was,
// PartiallyAccepted otherwise.
const (
	JobAccepted          JobStatus = "Accepted"
	JobPartiallyAccepted JobStatus = "PartiallyAccepted"
	JobRejected          JobStatus = "Rejected"
)

// WarningCode is the code of an InboundImportWarning.
type WarningCode string

// Item warning codes. A warning never rejects an item.
const (
	// WarningUnknownField: the target has a field that is not in the schema
	// (usually a typo); the field is ignored.
	WarningUnknownField WarningCode = "UnknownField"
	// WarningMissingCoordinates: neither address, nor location, nor the linked
	// customer location has both latitude and longitude, so the target cannot be
	// routed.
	WarningMissingCoordinates WarningCode = "MissingCoordinates"
	// WarningAlreadyCancelled: a cancel hit a target that was already cancelled.
	WarningAlreadyCancelled WarningCode = "AlreadyCancelled"
	// WarningTimeWindowOutsideRouteDate: the time window does not touch the route
	// date in any time zone (UTC-12 to UTC+14).
	WarningTimeWindowOutsideRouteDate WarningCode = "TimeWindowOutsideRouteDate"
)

// InboundImportWarning is a non-fatal finding about one imported target.
type InboundImportWarning struct {
	Code    WarningCode `json:"code"`
	Message string      `json:"message"`
}

// CustomerMappingStatus is the outcome of linking a target's customer, location and
// contact to customer records.
type CustomerMappingStatus string

// Customer mapping statuses of the specification.
const (
	MappingNotApplicable CustomerMappingStatus = "NotApplicable"
	MappingMapped        CustomerMappingStatus = "Mapped"
	MappingCreated       CustomerMappingStatus = "Created"
	MappingUpdated       CustomerMappingStatus = "Updated"
	MappingWarning       CustomerMappingStatus = "Warning"
	MappingFailed        CustomerMappingStatus = "Failed"
	MappingSkipped       CustomerMappingStatus = "Skipped"
)

// CustomerMappingWarning is a finding of customer mapping.
type CustomerMappingWarning string

// Customer mapping warnings of the specification.
const (
	MappingLocationMissingCoordinates               CustomerMappingWarning = "LocationMissingCoordinates"
	MappingAmbiguousCustomerNumber                  CustomerMappingWarning = "AmbiguousCustomerNumber"
	MappingTargetAddressDiffersFromCustomerLocation CustomerMappingWarning = "TargetAddressDiffersFromCustomerLocation"
	MappingCustomerAutoCreateDisabled               CustomerMappingWarning = "CustomerAutoCreateDisabled"
	MappingLocationAutoCreateDisabled               CustomerMappingWarning = "LocationAutoCreateDisabled"
	MappingContactAutoCreateDisabled                CustomerMappingWarning = "ContactAutoCreateDisabled"
	MappingContactLocationMismatch                  CustomerMappingWarning = "ContactLocationMismatch"
	MappingCustomerArchivedOrBlocked                CustomerMappingWarning = "CustomerArchivedOrBlocked"
)

// InboundCustomerMappingResult reports what customer mapping did for one item.
type InboundCustomerMappingResult struct {
	Status             CustomerMappingStatus    `json:"status"`
	CustomerID         *int64                   `json:"customerId"`
	CustomerLocationID *int64                   `json:"customerLocationId"`
	CustomerContactID  *int64                   `json:"customerContactId"`
	Warnings           []CustomerMappingWarning `json:"warnings"`
	Errors             []string                 `json:"errors"`
}

// InboundImportItemResult is the outcome of one target of an import.
type InboundImportItemResult struct {
	ExternalID      string                       `json:"externalId"`
	Status          ItemStatus                   `json:"status"`
	TargetID        *int64                       `json:"targetId"`
	ErrorCode       *ErrorCode                   `json:"errorCode"`
	ErrorMessage    *string                      `json:"errorMessage"`
	Warnings        []InboundImportWarning       `json:"warnings"`
	CustomerMapping InboundCustomerMappingResult `json:"customerMapping"`
}

// ImportCounters are the per-status counts of an import. Created + Updated +
// Cancelled + Rejected = Total; Warning counts items with at least one warning.
type ImportCounters struct {
	TotalItems     int `json:"totalItems"`
	CreatedItems   int `json:"createdItems"`
	UpdatedItems   int `json:"updatedItems"`
	CancelledItems int `json:"cancelledItems"`
	RejectedItems  int `json:"rejectedItems"`
	WarningItems   int `json:"warningItems"`
}

// CountItems derives the counters from item results, so they always add up.
func CountItems(items []InboundImportItemResult) ImportCounters {
	c := ImportCounters{TotalItems: len(items)}
	for _, it := range items {
		switch it.Status {
		case ItemImported:
			c.CreatedItems++
		case ItemUpdated:
			c.UpdatedItems++
		case ItemCancelled:
			c.CancelledItems++
		case ItemRejected:
			c.RejectedItems++
		}
		if len(it.Warnings) > 0 {
			c.WarningItems++
		}
	}
	return c
}

// Status derives the job status from the counters.
func (c ImportCounters) Status() JobStatus {
	switch c.RejectedItems {
	case 0:
		return JobAccepted
	case c.TotalItems:
		return JobRejected
	}
	return JobPartiallyAccepted
}

// InboundImportResult is the answer to a single or batch import.
type InboundImportResult struct {
	ImportJobID int64     `json:"importJobId"`
	Status      JobStatus `json:"status"`
	ImportCounters
	Items []InboundImportItemResult `json:"items"`
	// Links holds paths relative to the server root; the HTTP host fills them.
	Links map[string]string `json:"links"`
}

// ImportJobSummary is an import job as listed.
type ImportJobSummary struct {
	ID           int64     `json:"id"`
	SourceSystem string    `json:"sourceSystem"`
	BatchID      *string   `json:"batchId"`
	Status       JobStatus `json:"status"`
	ImportCounters
	CreatedAtUtc   time.Time  `json:"createdAtUtc"`
	ProcessedAtUtc *time.Time `json:"processedAtUtc"`
}

// ImportJobDetails is an import job with every item result.
type ImportJobDetails struct {
	ImportJobSummary
	Items []InboundImportItemResult `json:"items"`
}

// ImportJobList is one page of import jobs, newest first.
type ImportJobList struct {
	Total int                `json:"total"`
	Skip  int                `json:"skip"`
	Take  int                `json:"take"`
	Jobs  []ImportJobSummary `json:"jobs"`
}

// ---------------------------------------------------------------------------
// Route suggestions

// CreateImportJobRouteSuggestionRequest asks for a draft route built from the
// targets of an import job. RouteDate is required.
//
// MinimumBufferMinutes (0-480) and MaxStops (1-1000) are clamped into their
// ranges; an unknown employee or profile is NotFound.
type CreateImportJobRouteSuggestionRequest struct {
	RouteDate             Date    `json:"routeDate"`
	EmployeeID            *string `json:"employeeId"`
	OptimizationProfileID *int64  `json:"optimizationProfileId"`
	MinimumBufferMinutes  *int    `json:"minimumBufferMinutes"`
	MaxStops              *int    `json:"maxStops"`
}

// CreateRouteSuggestionResponse answers endpoint 6.
type CreateRouteSuggestionResponse struct {
	RouteSuggestionID int64                 `json:"routeSuggestionId"`
	Status            RouteSuggestionStatus `json:"status"`
	IncludedTargets   int                   `json:"includedTargets"`
	ExcludedTargets   int                   `json:"excludedTargets"`
	// Links holds paths relative to the server root; the HTTP host fills them.
	Links map[string]string `json:"links"`
}

// RouteSuggestionStatus is the state of a route suggestion: created Draft, then
// Published or Discarded by the host application (the manager's review).
type RouteSuggestionStatus string

// Route suggestion statuses.
const (
	RouteDraft     RouteSuggestionStatus = "Draft"
	RoutePublished RouteSuggestionStatus = "Published"
	RouteDiscarded RouteSuggestionStatus = "Discarded"
)

// ExclusionReason says why an item of the import job is not on the route.
type ExclusionReason string

// Exclusion reasons of a route suggestion.
const (
	// ExcludedRejected: the import item was rejected, so there is no target.
	ExcludedRejected ExclusionReason = "Rejected"
	// ExcludedCancelled: the target is cancelled now.
	ExcludedCancelled ExclusionReason = "Cancelled"
	// ExcludedMissingCoordinates: the target has no effective coordinates.
	ExcludedMissingCoordinates ExclusionReason = "MissingCoordinates"
	// ExcludedOtherRouteDate: the target's route date is another day, or its time
	// window does not touch the asked day.
	ExcludedOtherRouteDate ExclusionReason = "OtherRouteDate"
	// ExcludedOutsideShift: the target's time window or due time lies
	// outside the working hours (of every technician, for a route plan).
	ExcludedOutsideShift ExclusionReason = "OutsideShift"
	// ExcludedWindowUnreachable: the target's time window overlaps the working
	// hours, but no technician can travel there from the start in time, or
	// back by the end of the day after the work.
	ExcludedWindowUnreachable ExclusionReason = "WindowUnreachable"
	// ExcludedLongerThanShift: the target's work takes longer than the
	// working day (of every technician).
	ExcludedLongerThanShift ExclusionReason = "LongerThanShift"
	// ExcludedDoesNotFit: the target could be served alone, but the day is full
	// with more valuable targets (for a route plan: with targets of equal or
	// higher priority).
	ExcludedDoesNotFit ExclusionReason = "DoesNotFit"
	// ExcludedMaxStopsReached: the target would fit in time, but the route has
	// maxStops stops.
	ExcludedMaxStopsReached ExclusionReason = "MaxStopsReached"
	// ExcludedNoRoadAccess: the road network does not reach the target: it
	// lies farther from any road than the road engine accepts, or no road
	// connects it with the route's start and end.
	ExcludedNoRoadAccess ExclusionReason = "NoRoadAccess"
)

// TravelModel names what a route's travel times come from.
type TravelModel string

// The travel models.
const (
	// TravelGreatCircle: the great-circle distance × the profile's detour
	// factor ÷ its average speed; needs no map data.
	TravelGreatCircle TravelModel = "greatCircle"
	// TravelRoad: driving times and distances on the road network, from a
	// road engine (OSRM) over OpenStreetMap data.
	TravelRoad TravelModel = "road"
)

// RouteSuggestion is a draft route for one technician's day, as read with GET
// {base_url}/route-suggestions/{id}. Times are UTC; distances in km and
// durations in minutes are rounded to one decimal.
//
// The day is scheduled with the least waiting: it starts as late as it can
// without losing a stop or ending later (the technician leaves so as to reach
// the first window as it opens), and every stop is served as early as
// possible from then on, so waiting is left only before a stop whose window
// opens late where an earlier stop's window does not allow starting later.
type RouteSuggestion struct {
	ID                    int64   `json:"id"`
	ImportJobID           int64   `json:"importJobId"`
	RouteDate             Date    `json:"routeDate"`
	EmployeeID            *string `json:"employeeId"`
	OptimizationProfileID *int64  `json:"optimizationProfileId"`
	// TimeZone is the IANA time zone the day was planned in (the profile's):
	// RouteDate and the shift are local dates and times there.
	TimeZone     string                `json:"timeZone"`
	Status       RouteSuggestionStatus `json:"status"`
	CreatedAtUtc time.Time             `json:"createdAtUtc"`
	// StartUtc is when the route starts (leaving the start location, or
	// arriving at the first stop without one); EndUtc when it ends. Both are null
	// for a route without stops.
	StartUtc           *time.Time `json:"startUtc"`
	EndUtc             *time.Time `json:"endUtc"`
	TotalTravelKm      float64    `json:"totalTravelKm"`
	TotalTravelMinutes float64    `json:"totalTravelMinutes"`
	TotalWorkMinutes   int        `json:"totalWorkMinutes"`
	// WaitMinutes is the waiting of all stops together.
	WaitMinutes float64 `json:"waitMinutes"`
	// RoutePlanID is the route plan this draft is part of, null for a
	// suggestion of endpoint 6; such a draft's importJobId is the plan's one
	// import job, or 0 when it has several or none.
	RoutePlanID *int64 `json:"routePlanId"`
	// Break is when the technician pauses, null without a break.
	Break *RouteBreak `json:"break"`
	// TravelModel says what the travel times come from. TravelFallback is
	// true when the service's road engine failed and the times are
	// great-circle estimates instead (the operator allowed that).
	TravelModel    TravelModel         `json:"travelModel"`
	TravelFallback bool                `json:"travelFallback"`
	Start          *RoutePoint         `json:"start"`
	End            *RoutePoint         `json:"end"`
	Stops          []RouteStop         `json:"stops"`
	Excluded       []RouteExcludedItem `json:"excluded"`
	// GeometryToEnd is the road path from the last stop to End, as for
	// RouteStop.GeometryFromPrevious.
	GeometryToEnd *string `json:"geometryToEnd"`
}

// RoutePoint is where a route starts or ends (the employee's locations).
type RoutePoint struct {
	Latitude  float64 `json:"latitude"`
	Longitude float64 `json:"longitude"`
}

// RouteStop is one visit of a route suggestion: the technician arrives at
// ArrivalUtc, waits WaitMinutes until the target's time window opens, works
// from ServiceStartUtc and leaves at DepartureUtc (the service start plus the
// estimated work minutes).
type RouteStop struct {
	Sequence   int    `json:"sequence"`
	TargetID   int64  `json:"targetId"`
	ExternalID string `json:"externalId"`
	// Title is the target's title when the route was planned.
	Title                     string    `json:"title"`
	Latitude                  float64   `json:"latitude"`
	Longitude                 float64   `json:"longitude"`
	ArrivalUtc                time.Time `json:"arrivalUtc"`
	WaitMinutes               float64   `json:"waitMinutes"`
	ServiceStartUtc           time.Time `json:"serviceStartUtc"`
	DepartureUtc              time.Time `json:"departureUtc"`
	TravelMinutesFromPrevious float64   `json:"travelMinutesFromPrevious"`
	TravelKmFromPrevious      float64   `json:"travelKmFromPrevious"`
	// GeometryFromPrevious is the road path from the previous stop (or the
	// start) to this one, as an encoded polyline with precision 6 (Google's
	// polyline algorithm, coordinates × 10⁶, latitude first: OSRM's
	// "polyline6"); null when the travel model knows no roads, for the first
	// stop of a route without a start, or when the path could not be fetched.
	GeometryFromPrevious *string `json:"geometryFromPrevious"`
}

// RouteExcludedItem is an item of the import job that is not on the route.
// Latitude and Longitude are the target's effective coordinates, null when it
// has none (and for a rejected item, which has no target).
type RouteExcludedItem struct {
	TargetID   *int64          `json:"targetId"`
	ExternalID string          `json:"externalId"`
	Reason     ExclusionReason `json:"reason"`
	// Message says in words why, and what would help.
	Message   string   `json:"message"`
	Latitude  *float64 `json:"latitude"`
	Longitude *float64 `json:"longitude"`
}

// RouteBreak is when a technician pauses on a route: it starts after the
// stop with sequence AfterStop (0: before the first stop).
type RouteBreak struct {
	StartUtc  time.Time `json:"startUtc"`
	EndUtc    time.Time `json:"endUtc"`
	AfterStop int       `json:"afterStop"`
}

// MaxPlanEmployees is the most employees one route plan plans for.
const MaxPlanEmployees = 50

// CreateRoutePlanRequest asks for a team's day: one draft route per
// employee, with no target on two of them. Without ImportJobIDs the targets
// are every non-cancelled target of the tenant for RouteDate: its
// planning.routeDate is that day, or it has none and its time window or due
// time falls on it.
type CreateRoutePlanRequest struct {
	RouteDate    Date     `json:"routeDate"`
	EmployeeIDs  []string `json:"employeeIds"`
	ImportJobIDs []int64  `json:"importJobIds"`
	// OptimizationProfileID is the profile of the employees without one of
	// their own.
	OptimizationProfileID *int64 `json:"optimizationProfileId"`
	MinimumBufferMinutes  *int   `json:"minimumBufferMinutes"`
	// MaxStops caps every route.
	MaxStops *int `json:"maxStops"`
}

// RoutePlanRoute is one employee's draft in a CreateRoutePlanResponse.
type RoutePlanRoute struct {
	EmployeeID        string `json:"employeeId"`
	RouteSuggestionID int64  `json:"routeSuggestionId"`
	IncludedTargets   int    `json:"includedTargets"`
}

// CreateRoutePlanResponse answers POST {base_url}/route-plans.
type CreateRoutePlanResponse struct {
	RoutePlanID     int64                 `json:"routePlanId"`
	Status          RouteSuggestionStatus `json:"status"`
	Routes          []RoutePlanRoute      `json:"routes"`
	IncludedTargets int                   `json:"includedTargets"`
	LeftOutTargets  int                   `json:"leftOutTargets"`
	// Links holds paths relative to the server root; the HTTP host fills them.
	Links map[string]string `json:"links"`
}

// RoutePlan is a team's day as read with GET {base_url}/route-plans/{id}:
// one draft RouteSuggestion per employee, in the request's order, and the
// targets left out, each with its reason.
type RoutePlan struct {
	ID           int64                 `json:"id"`
	RouteDate    Date                  `json:"routeDate"`
	Status       RouteSuggestionStatus `json:"status"`
	CreatedAtUtc time.Time             `json:"createdAtUtc"`
	EmployeeIDs  []string              `json:"employeeIds"`
	ImportJobIDs []int64               `json:"importJobIds"`
	Routes       []RouteSuggestion     `json:"routes"`
	LeftOut      []RouteExcludedItem   `json:"leftOut"`
}

// ---------------------------------------------------------------------------
// Integration clients

// Client is an Integration Client: the holder of one API key.
type Client struct {
	TenantID     string     `json:"tenantId"`
	ClientID     string     `json:"clientId"`
	SourceSystem string     `json:"sourceSystem"`
	Scopes       []Scope    `json:"scopes"`
	KeyPrefix    string     `json:"keyPrefix"`
	CreatedAt    time.Time  `json:"createdAt"`
	RevokedAt    *time.Time `json:"revokedAt"`
}

// Caller returns the identity a request authenticated with c's key runs as.
func (c Client) Caller() Caller {
	return Caller{TenantID: c.TenantID, ClientID: c.ClientID, SourceSystem: c.SourceSystem, Scopes: c.Scopes}
}

// NewClient describes a client to create.
type NewClient struct {
	TenantID     string  `json:"tenantId" validate:"notblank,max=200,printascii"`
	ClientID     string  `json:"clientId" validate:"notblank,max=200,printascii"`
	SourceSystem string  `json:"sourceSystem" validate:"notblank,max=200"`
	Scopes       []Scope `json:"scopes" validate:"min=1"`
}

// ---------------------------------------------------------------------------
// Appointment requests (preview)

// AppointmentStatus is the state of an appointment request. Which actions move a
// request between states is the table appointments.Transitions.
type AppointmentStatus string

// The statuses of an appointment request (specification "Appointment request
// statuses"). Completed, Rejected, Cancelled and Failed are final.
const (
	AppointmentSubmitted     AppointmentStatus = "Submitted"
	AppointmentValidated     AppointmentStatus = "Validated"
	AppointmentPendingReview AppointmentStatus = "PendingReview"
	AppointmentAccepted      AppointmentStatus = "Accepted"
	AppointmentRejected      AppointmentStatus = "Rejected"
	AppointmentScheduled     AppointmentStatus = "Scheduled"
	AppointmentAssigned      AppointmentStatus = "Assigned"
	AppointmentInProgress    AppointmentStatus = "InProgress"
	AppointmentCompleted     AppointmentStatus = "Completed"
	AppointmentCancelled     AppointmentStatus = "Cancelled"
	AppointmentFailed        AppointmentStatus = "Failed"
)

// AppointmentStatuses lists every status, in the order of the specification.
var AppointmentStatuses = []AppointmentStatus{
	AppointmentSubmitted, AppointmentValidated, AppointmentPendingReview, AppointmentAccepted,
	AppointmentRejected, AppointmentScheduled, AppointmentAssigned, AppointmentInProgress,
	AppointmentCompleted, AppointmentCancelled, AppointmentFailed,
}

// Valid reports whether s is one of AppointmentStatuses.
func (s AppointmentStatus) Valid() bool {
	for _, known := range AppointmentStatuses {
		if s == known {
			return true
		}
	}
	return false
}

// AppointmentAction is what moves an appointment request from one status to the
// next.
type AppointmentAction string

// The actions of the appointment lifecycle, grouped by who performs them.
const (
	// The service's automatic checks on submit: all good, or a person must look.
	AppointmentActionValidate AppointmentAction = "validate"
	AppointmentActionReview   AppointmentAction = "review"
	// Host applications, through TransitionAppointmentRequest.
	AppointmentActionAccept   AppointmentAction = "accept"
	AppointmentActionReject   AppointmentAction = "reject"
	AppointmentActionSchedule AppointmentAction = "schedule"
	AppointmentActionAssign   AppointmentAction = "assign"
	AppointmentActionStart    AppointmentAction = "start"
	AppointmentActionComplete AppointmentAction = "complete"
	AppointmentActionFail     AppointmentAction = "fail"
	// Clients, through CancelAppointmentRequest.
	AppointmentActionCancel AppointmentAction = "cancel"
)

// AppointmentPriority is how urgent an appointment request is.
type AppointmentPriority string

// Appointment priorities. An absent priority means AppointmentPriorityNormal.
const (
	AppointmentPriorityLow    AppointmentPriority = "low"
	AppointmentPriorityNormal AppointmentPriority = "normal"
	AppointmentPriorityHigh   AppointmentPriority = "high"
	AppointmentPriorityUrgent AppointmentPriority = "urgent"
)

// Known service types of an appointment request. Other values are accepted too,
// so a source system can use its own.
const (
	ServiceTypeMaintenance  = "maintenance"
	ServiceTypeVisit        = "visit"
	ServiceTypePickup       = "pickup"
	ServiceTypeInspection   = "inspection"
	ServiceTypeRepair       = "repair"
	ServiceTypeInstallation = "installation"
)

// AppointmentTimeWindow is a span of time the requester prefers for the visit.
// StartUtc must be before EndUtc.
type AppointmentTimeWindow struct {
	StartUtc time.Time `json:"startUtc" validate:"required"`
	EndUtc   time.Time `json:"endUtc" validate:"required"`
}

// NewAppointmentRequest is what a client submits: the client-writable fields of
// an AppointmentRequest (DECISIONS.md "Appointment requests").
type NewAppointmentRequest struct {
	ExternalReference string                 `json:"externalReference" validate:"notblank,max=200"`
	ServiceType       string                 `json:"serviceType" validate:"notblank,max=500"`
	Priority          AppointmentPriority    `json:"priority,omitempty" validate:"omitempty,oneof=low normal high urgent"`
	Customer          *InboundTargetCustomer `json:"customer"`
	Contact           *InboundTargetContact  `json:"contact"`
	Location          *InboundTargetLocation `json:"location" validate:"required"`
	// PreferredTimeWindows has at most MaxPreferredTimeWindows entries.
	PreferredTimeWindows []AppointmentTimeWindow `json:"preferredTimeWindows" validate:"dive"`
	Description          *string                 `json:"description" validate:"omitnil,max=10000"`
	// Metadata is any JSON object from the source system, at most 16 KiB as
	// compact JSON; it is kept as sent, compacted.
	Metadata jsontext.Value `json:"metadata" validate:"omitempty,jsonobject,maxbytes=16384"`
}

// MaxPreferredTimeWindows is the most preferredTimeWindows an appointment
// request may have. It is enforced while a request is read, so the 11th window
// fails it at once (appointments).
const MaxPreferredTimeWindows = 10

// CancelledBy says on whose behalf an appointment request was cancelled.
type CancelledBy string

// Who can cancel. An absent value means CancelledByClient.
const (
	CancelledByClient   CancelledBy = "client"
	CancelledByCustomer CancelledBy = "customer"
	CancelledByOperator CancelledBy = "operator"
)

// AppointmentRequest is an appointment request as the service keeps it: the
// submitted fields, defaulted (priority normal), plus the server's fields. The id
// is `apr_` + 26 characters that sort by creation time.
type AppointmentRequest struct {
	ID     string            `json:"id"`
	Status AppointmentStatus `json:"status"`
	NewAppointmentRequest
	CreatedAt    time.Time    `json:"createdAt"`
	UpdatedAt    time.Time    `json:"updatedAt"`
	CancelledAt  *time.Time   `json:"cancelledAt"`
	CancelReason *string      `json:"cancelReason"`
	CancelledBy  *CancelledBy `json:"cancelledBy"`
}

// AppointmentStatusChange is one entry of a request's status history.
type AppointmentStatusChange struct {
	Status AppointmentStatus `json:"status"`
	At     time.Time         `json:"at"`
	Note   *string           `json:"note"`
}

// AppointmentStatusResponse answers GET …/appointment-requests/{id}/status. History
// holds every status the request has had, oldest first, starting with Submitted.
type AppointmentStatusResponse struct {
	ID        string                    `json:"id"`
	Status    AppointmentStatus         `json:"status"`
	UpdatedAt time.Time                 `json:"updatedAt"`
	History   []AppointmentStatusChange `json:"history"`
}

// CancelAppointmentRequest is the body of POST …/appointment-requests/{id}/cancel.
type CancelAppointmentRequest struct {
	Reason      string      `json:"reason" validate:"notblank,max=500"`
	CancelledBy CancelledBy `json:"cancelledBy,omitempty" validate:"omitempty,oneof=client customer operator"`
}

// CancelAppointmentResponse answers a cancel. Cancelling an already cancelled
// request answers the original cancellation, with its CancelledAt.
type CancelAppointmentResponse struct {
	ID          string            `json:"id"`
	Status      AppointmentStatus `json:"status"`
	CancelledAt time.Time         `json:"cancelledAt"`
}

// AppointmentRequestPage is one page of a tenant's appointment requests, in id
// (that is, creation) order.
type AppointmentRequestPage struct {
	Requests []AppointmentRequest `json:"requests"`
	// Next is the cursor of the following page, to pass as after; empty on the
	// last page.
	Next string `json:"next"`
}

// ---------------------------------------------------------------------------
// Webhook events and subscriptions

// EventKind names what happened: the type of a webhook event, and what a
// webhook subscription chooses to receive (DECISIONS.md "Webhook events").
type EventKind string

// The event kinds. Each names its payload, the data of the envelope.
const (
	// EventImportJobCompleted: a single or batch import finished; data is the
	// job's ImportJobSummary.
	EventImportJobCompleted EventKind = "import_job.completed"
	// EventRouteSuggestionCreated: a draft route was built from an import job;
	// data is a RouteSuggestionCreatedEvent.
	EventRouteSuggestionCreated EventKind = "route_suggestion.created"
	// EventAppointmentRequestCreated: an appointment request was submitted;
	// data is the AppointmentRequest as stored, after the automatic checks.
	EventAppointmentRequestCreated EventKind = "appointment_request.created"
	// EventAppointmentStatusChanged: an appointment request changed status,
	// by the automatic checks, a host action or a cancel; data is an
	// AppointmentStatusChangedEvent.
	EventAppointmentStatusChanged EventKind = "appointment_request.status_changed"
)

// EventKinds lists every event kind, in documentation order.
var EventKinds = []EventKind{
	EventImportJobCompleted, EventRouteSuggestionCreated,
	EventAppointmentRequestCreated, EventAppointmentStatusChanged,
}

// Valid reports whether k is one of EventKinds.
func (k EventKind) Valid() bool {
	for _, known := range EventKinds {
		if k == known {
			return true
		}
	}
	return false
}

// ParseEventKinds turns a comma-separated list ("a,b") into event kinds without
// duplicates, refusing unknown names so a typo never yields a subscription that
// silently receives nothing.
func ParseEventKinds(list string) ([]EventKind, error) {
	var kinds []EventKind
	for _, name := range strings.Split(list, ",") {
		kind := EventKind(strings.TrimSpace(name))
		switch {
		case kind == "" || slices.Contains(kinds, kind):
			continue
		case !kind.Valid():
			return nil, Errorf(CodeInvalidRequest, "unknown event kind %s; the kinds are %s", Quote(string(kind)), joinEventKinds(EventKinds))
		}
		kinds = append(kinds, kind)
	}
	if len(kinds) == 0 {
		return nil, Errorf(CodeInvalidRequest, "at least one event kind is required; the kinds are %s", joinEventKinds(EventKinds))
	}
	return kinds, nil
}

func joinEventKinds(kinds []EventKind) string {
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = string(k)
	}
	return strings.Join(names, ",")
}

// EventPing is the kind of the test event a subscription's test sends
// (WebhookSubscriptionService.TestWebhookSubscription): nobody subscribes to
// it, and it is not kept in the events feed.
const EventPing EventKind = "ping"

// EventSchemaVersion is the version of the envelope and of every kind's data
// schema, carried by every event as schemaVersion. It grows when a field
// changes meaning or goes away; new fields do not change it.
const EventSchemaVersion = 1

// WebhookEvent is the body of every webhook delivery, the Standard Webhooks
// envelope, and, byte for byte, an event of the events feed. ID is the
// webhook-id of its deliveries. Timestamp is when the event happened, not
// when it was sent; the webhook-timestamp header says when it was sent.
type WebhookEvent struct {
	ID            string         `json:"id"`
	Type          EventKind      `json:"type"`
	Timestamp     time.Time      `json:"timestamp"`
	SchemaVersion int            `json:"schemaVersion"`
	Data          jsontext.Value `json:"data"`
}

// PingEvent is the data of a ping: the subscription tested.
type PingEvent struct {
	SubscriptionID int64 `json:"subscriptionId"`
}

// EventQuery selects a page of a tenant's events feed. Every field is
// optional.
type EventQuery struct {
	// After is the id of the last event of the previous page: the page
	// starts after it.
	After string
	// Types keeps the events of these kinds (every kind when empty).
	Types []EventKind
	// Since and Until keep the events created at or after Since and before
	// Until (zero: no bound).
	Since, Until time.Time
	// Limit is the page size: DefaultTake when below 1, at most MaxTake.
	Limit int
}

// EventPage is one page of the events feed, in commit order: every event is
// exactly the body its deliveries carry.
type EventPage struct {
	Events []jsontext.Value `json:"events"`
	// Next is the id of the page's last event, to pass as after; empty when
	// the page is the last one for now (later events may come).
	Next string `json:"next"`
}

// EventFeed reads a tenant's events: each event of the retention period,
// byte-identical to the body of its deliveries, whether or not a
// subscription wanted it or received it.
type EventFeed interface {
	// ListEvents returns a page of the caller's tenant's events in commit
	// order. Errors: InsufficientScope, InvalidRequest (an unknown type,
	// since not before until), NotFound (after names no event of the tenant,
	// or one already pruned).
	ListEvents(ctx context.Context, caller Caller, q EventQuery) (EventPage, error)
	// GetEvent returns one event of the caller's tenant. Errors:
	// InsufficientScope, NotFound.
	GetEvent(ctx context.Context, caller Caller, id string) (jsontext.Value, error)
}

// AppointmentStatusChangedEvent is the data of appointment_request.status_changed:
// the request ID moved from From to To at At; Note is the history entry's note.
type AppointmentStatusChangedEvent struct {
	ID   string            `json:"id"`
	From AppointmentStatus `json:"from"`
	To   AppointmentStatus `json:"to"`
	At   time.Time         `json:"at"`
	Note *string           `json:"note"`
}

// RouteSuggestionCreatedEvent is the data of route_suggestion.created.
type RouteSuggestionCreatedEvent struct {
	RouteSuggestionID int64                 `json:"routeSuggestionId"`
	ImportJobID       int64                 `json:"importJobId"`
	RouteDate         Date                  `json:"routeDate"`
	Status            RouteSuggestionStatus `json:"status"`
	IncludedTargets   int                   `json:"includedTargets"`
	ExcludedTargets   int                   `json:"excludedTargets"`
}

// WebhookSubscription is where a tenant's events of some kinds are delivered,
// as listed: its settings and its delivery state, never its secret.
type WebhookSubscription struct {
	ID       int64       `json:"id"`
	TenantID string      `json:"tenantId"`
	URL      string      `json:"url"`
	Kinds    []EventKind `json:"kinds"`
	// Enabled is false after Disable, or after deliveries failed without a
	// break for the dispatcher's DisableAfter; pending events are kept.
	Enabled bool `json:"enabled"`
	// AllowInsecureLoopback allowed an http URL on a loopback host.
	AllowInsecureLoopback bool      `json:"allowInsecureLoopback"`
	CreatedAt             time.Time `json:"createdAt"`
	// Cursor is the sequence number of the last event delivered (or, for a
	// new subscription, of the last event before it was added): the events
	// after it are pending.
	Cursor int64 `json:"cursor"`
	// Attempts counts the failed attempts at the next pending event since the
	// last success; NextAttemptAt is when it is tried again (nil: at once).
	Attempts      int        `json:"attempts"`
	NextAttemptAt *time.Time `json:"nextAttemptAt"`
	// FailingSince is the first of the failures without a success since.
	FailingSince *time.Time `json:"failingSince"`
	LastError    string     `json:"lastError,omitempty"`
	DisabledAt   *time.Time `json:"disabledAt"`
	// DisabledBy says who disabled it: DisabledByFailures, or the
	// integrator's or operator's Disable (DisabledByRequest).
	DisabledBy string `json:"disabledBy,omitempty"`
	// LastDeliveredEventID and LastDeliveredAt are the last event of the
	// live stream its receiver accepted, and when.
	LastDeliveredEventID string     `json:"lastDeliveredEventId,omitempty"`
	LastDeliveredAt      *time.Time `json:"lastDeliveredAt,omitempty"`
}

// Who disabled a subscription (WebhookSubscription.DisabledBy).
const (
	DisabledByFailures = "failures"
	DisabledByRequest  = "request"
)

// NewWebhookSubscription describes a subscription to create. URL must be https,
// or http on a loopback host (127.0.0.0/8, ::1, localhost) when
// AllowInsecureLoopback is set, for development, and its host must not be or
// resolve to a non-public address (DECISIONS.md "Bounded cost of every
// request"; webhooks.URLPolicy). Kinds must hold at least one of EventKinds;
// the webhook subscription service checks these rules, which tags cannot say.
type NewWebhookSubscription struct {
	TenantID              string      `json:"tenantId" validate:"notblank,max=200,printascii"`
	URL                   string      `json:"url" validate:"notblank,max=2000"`
	Kinds                 []EventKind `json:"kinds"`
	AllowInsecureLoopback bool        `json:"allowInsecureLoopback"`
}

// WebhookSubscriptionRequest is the body of POST {base_url}/webhook-subscriptions:
// an integrator subscribes an https URL to some of its tenant's event kinds.
type WebhookSubscriptionRequest struct {
	URL    string      `json:"url"`
	Events []EventKind `json:"events"`
}

// WebhookSubscriptionInfo is a webhook subscription as its tenant's
// integrators see it: its settings and its delivery health, never its
// secret.
type WebhookSubscriptionInfo struct {
	ID        int64       `json:"id"`
	URL       string      `json:"url"`
	Events    []EventKind `json:"events"`
	Enabled   bool        `json:"enabled"`
	CreatedAt time.Time   `json:"createdAt"`
	// Status says whether events are delivered, and if not, why.
	Status SubscriptionStatus `json:"status"`
	// LastError is the cause of the last failed attempt, while failing.
	LastError *string `json:"lastError"`
	// FailingSince is the first failed attempt without a success since.
	FailingSince *time.Time `json:"failingSince"`
	// NextAttemptAt is when a failed event is tried again.
	NextAttemptAt *time.Time `json:"nextAttemptAt"`
	// LastDeliveredEventID and LastDeliveredAt say how far the live stream
	// has delivered: the last event accepted, and when.
	LastDeliveredEventID *string    `json:"lastDeliveredEventId"`
	LastDeliveredAt      *time.Time `json:"lastDeliveredAt"`
	// PendingReplays counts the replays and resends not yet delivered.
	PendingReplays int `json:"pendingReplays"`
	// PreviousSecretExpiresAt is when the secret before the last rotation
	// stops signing (nil: only the current secret signs).
	PreviousSecretExpiresAt *time.Time `json:"previousSecretExpiresAt"`
}

// SubscriptionStatus is the delivery state of a webhook subscription.
type SubscriptionStatus string

// The subscription states.
const (
	// SubscriptionEnabled: events are delivered (and retried while failing).
	SubscriptionEnabled SubscriptionStatus = "Enabled"
	// SubscriptionDisabled: disabled by an integrator or the operator.
	SubscriptionDisabled SubscriptionStatus = "Disabled"
	// SubscriptionDisabledAfterFailures: disabled by the service after its
	// deliveries failed without a success for the configured time.
	SubscriptionDisabledAfterFailures SubscriptionStatus = "DisabledAfterFailures"
)

// DeliveryAttempt is one attempt at delivering an event to a subscription.
type DeliveryAttempt struct {
	ID        int64     `json:"id"`
	EventID   string    `json:"eventId"`
	EventType EventKind `json:"eventType"`
	// Trigger says why the event was sent: live, replay, resend or test.
	Trigger    string    `json:"trigger"`
	At         time.Time `json:"at"`
	DurationMs int64     `json:"durationMs"`
	// Outcome is delivered (a 2xx answer), http_error, timeout,
	// network_error or refused (the address is not allowed).
	Outcome string `json:"outcome"`
	// ResponseStatus is the receiver's HTTP status (nil without an answer).
	ResponseStatus *int `json:"responseStatus"`
	// Error is the failure, cut to 300 bytes (nil when delivered).
	Error *string `json:"error"`
	// Attempt numbers the attempts at this event in a row: 1 for the first.
	Attempt int `json:"attempt"`
}

// DeliveryAttemptPage is a page of a subscription's attempts, newest first.
type DeliveryAttemptPage struct {
	Attempts []DeliveryAttempt `json:"attempts"`
	// Next is the id of the page's last attempt, to pass as before; empty on
	// the last page.
	Next string `json:"next"`
}

// ReplayRequest is the body of POST …/webhook-subscriptions/{id}/replay:
// exactly one of Since (the events created at or after it) and AfterEventID
// (the events after that one).
type ReplayRequest struct {
	Since        *time.Time `json:"since"`
	AfterEventID *string    `json:"afterEventId"`
}

// ResendRequest is the body of POST …/webhook-subscriptions/{id}/resend.
type ResendRequest struct {
	EventID string `json:"eventId"`
}

// ReplayOutcome is the result of a replay or a resend: the subscription with
// its pending replays.
type ReplayOutcome struct {
	Subscription WebhookSubscriptionInfo
	// Replayed is true when the outcome was stored by an earlier call with the
	// same idempotency key and nothing was executed.
	Replayed bool
}

// TestOutcome is the result of a subscription's test: the ping's attempt.
type TestOutcome struct {
	Attempt DeliveryAttempt
	// Replayed is true when the outcome was stored by an earlier call with the
	// same idempotency key and nothing was sent.
	Replayed bool
}

// WebhookSubscriptionWithSecret is the answer of a create and of a secret
// rotation, the only answers that show the signing secret.
type WebhookSubscriptionWithSecret struct {
	WebhookSubscriptionInfo
	Secret string `json:"secret"`
}

// WebhookSubscriptionList is the answer of GET {base_url}/webhook-subscriptions.
type WebhookSubscriptionList struct {
	Subscriptions []WebhookSubscriptionInfo `json:"subscriptions"`
}

// ---------------------------------------------------------------------------
// Service interfaces
//
// What the feature packages implement and the HTTP host (or an embedding
// host application) calls. A method taking a Caller first requires the scope
// that Required names for it, and answers InsufficientScope without it; it
// sees only the caller's tenant, so another tenant's id is NotFound, like an
// unknown one. A method taking a tenant id is the host application's and
// needs no scope. A typed entry point takes its request's JSON: it gets
// exactly the answers of the JSON entry point beside it, and refuses a value
// JSON cannot hold as InvalidRequest naming the field (EncodeRequest). Every
// error is, or wraps, an *Error with one of the codes named; anything else
// is an internal fault.

// WriteOptions are the options every write accepts.
type WriteOptions struct {
	// IdempotencyKey, when not empty, makes the write idempotent for the caller's
	// client: the same key with the same request returns the stored outcome without
	// executing again; with a different request it fails with IdempotencyKeyReused;
	// while the first request still runs it fails with IdempotencyKeyInUse. A key
	// that is empty, longer than MaxIdempotencyKeyLength or not printable UTF-8 is
	// InvalidRequest.
	IdempotencyKey string
}

// MaxIdempotencyKeyLength is the longest accepted Idempotency-Key, in bytes.
const MaxIdempotencyKeyLength = 255

// ImportOutcome is the result of an import call.
type ImportOutcome struct {
	Result InboundImportResult
	// Created is true when a single import created a new target (HTTP 201).
	Created bool
	// Replayed is true when the outcome was stored by an earlier call with the same
	// idempotency key and nothing was executed.
	Replayed bool
}

// Importer imports work targets. An import runs in one store transaction: the
// targets, the import job with all item results, its event and the
// idempotency record are written together or not at all. Problems of one
// target never fail the call: they reject that item (ValidationFailed,
// TargetAlreadyExists, TargetNotFound, TargetCancelled in its errorCode).
type Importer interface {
	// ImportTarget imports one target (endpoint 2).
	// Errors: InsufficientScope (inbound.targets.write), InvalidRequest (a
	// value JSON cannot hold; a bad key), IdempotencyKeyReused,
	// IdempotencyKeyInUse.
	ImportTarget(ctx context.Context, caller Caller, target InboundTarget, opts WriteOptions) (ImportOutcome, error)
	// ImportTargetJSON imports one target given as the JSON body of
	// endpoint 2. Errors: those of ImportTarget, and InvalidRequest for a body
	// that is not a JSON object.
	ImportTargetJSON(ctx context.Context, caller Caller, body []byte, opts WriteOptions) (ImportOutcome, error)
	// ImportBatch imports a batch's targets in order (endpoint 3).
	// Errors: InsufficientScope (inbound.targets.batch.write), InvalidRequest
	// (no targets, an unknown operation, a value JSON cannot hold, a bad key),
	// PayloadTooLarge (more targets than the limit), IdempotencyKeyReused,
	// IdempotencyKeyInUse.
	ImportBatch(ctx context.Context, caller Caller, batch InboundTargetBatch, opts WriteOptions) (ImportOutcome, error)
	// ImportBatchJSON imports a batch given as the JSON body of endpoint 3.
	// Errors: those of ImportBatch, and InvalidRequest for a body that is not
	// a JSON object or breaks the envelope's strictness (a member given twice,
	// invalid UTF-8 outside the targets).
	ImportBatchJSON(ctx context.Context, caller Caller, body []byte, opts WriteOptions) (ImportOutcome, error)
}

// JobQuery selects a page of import jobs. Nil Skip and Take take the defaults (0 and
// 50); values out of range are clamped (skip ≥ 0, 1 ≤ take ≤ 200). Status and
// SourceSystem, when not empty, are exact case-insensitive matches.
type JobQuery struct {
	Status       string
	SourceSystem string
	Skip         *int
	Take         *int
}

// Page limits of every list.
const (
	DefaultTake = 50
	MaxTake     = 200
)

// PageLimit turns a list's page size into the one used: DefaultTake when
// unset (below 1), at most MaxTake.
func PageLimit(limit int) int {
	if limit < 1 {
		return DefaultTake
	}
	return min(limit, MaxTake)
}

// Page returns the skip and take a query asks for, defaulted and clamped.
func (q JobQuery) Page() (skip, take int) {
	skip, take = 0, DefaultTake
	if q.Skip != nil {
		skip = max(*q.Skip, 0)
	}
	if q.Take != nil {
		take = min(max(*q.Take, 1), MaxTake)
	}
	return skip, take
}

// JobStore reads the import jobs of the caller's tenant.
type JobStore interface {
	// ListJobs returns one page of jobs matching q, newest first, with the
	// number of all matching jobs (endpoint 4). It never refuses a query: its
	// bounds are clamped. Errors: InsufficientScope (import_jobs.read).
	ListJobs(ctx context.Context, caller Caller, q JobQuery) (ImportJobList, error)
	// GetJob returns one job with every item result (endpoint 5).
	// Errors: InsufficientScope (import_jobs.read), NotFound.
	GetJob(ctx context.Context, caller Caller, id int64) (ImportJobDetails, error)
}

// RouteSuggestionOutcome is the result of CreateRouteSuggestion.
type RouteSuggestionOutcome struct {
	Response CreateRouteSuggestionResponse
	// Replayed is true when the outcome was stored by an earlier call with the same
	// idempotency key and nothing was executed.
	Replayed bool
}

// RouteSuggester builds draft routes from the targets of an import job and
// keeps them.
type RouteSuggester interface {
	// CreateRouteSuggestion plans a draft route for the request's day from the
	// job's targets and stores it (endpoint 6). Solves wait in a bounded queue.
	// Errors: InsufficientScope (route_suggestions.create), InvalidRequest
	// (routeDate missing or malformed; a value JSON cannot hold; a bad key),
	// NotFound (job, employee or profile), RateLimited (the solve queue is
	// full, with RetryAfter), IdempotencyKeyReused, IdempotencyKeyInUse.
	CreateRouteSuggestion(ctx context.Context, caller Caller, jobID int64, req CreateImportJobRouteSuggestionRequest, opts WriteOptions) (RouteSuggestionOutcome, error)
	// CreateRouteSuggestionJSON is CreateRouteSuggestion with the JSON body of
	// endpoint 6. Errors: those of CreateRouteSuggestion, and InvalidRequest
	// for a body that is not a JSON object or has a member of the wrong type.
	CreateRouteSuggestionJSON(ctx context.Context, caller Caller, jobID int64, body []byte, opts WriteOptions) (RouteSuggestionOutcome, error)
	// GetRouteSuggestion returns a suggestion of the caller's tenant.
	// Errors: InsufficientScope (import_jobs.read), NotFound.
	GetRouteSuggestion(ctx context.Context, caller Caller, id int64) (RouteSuggestion, error)
	// RouteSuggestionsForJob lists the suggestions of a job of tenantID,
	// oldest first; none for an unknown job.
	RouteSuggestionsForJob(ctx context.Context, tenantID string, jobID int64) ([]RouteSuggestion, error)
	// PublishRouteSuggestion ends a Draft as Published: the manager accepted
	// it. Errors: NotFound, InvalidStateTransition (not a Draft).
	PublishRouteSuggestion(ctx context.Context, tenantID string, id int64) (RouteSuggestion, error)
	// DiscardRouteSuggestion ends a Draft as Discarded.
	// Errors: NotFound, InvalidStateTransition (not a Draft).
	DiscardRouteSuggestion(ctx context.Context, tenantID string, id int64) (RouteSuggestion, error)
}

// RoutePlanOutcome is the result of CreateRoutePlan.
type RoutePlanOutcome struct {
	Response CreateRoutePlanResponse
	// Replayed is true when the outcome was stored by an earlier call with the same
	// idempotency key and nothing was executed.
	Replayed bool
}

// RoutePlanner plans a team's day in one solve, an extension beside endpoint
// 6: every employee gets one draft route and no target is on two. The plan
// and its drafts are stored in one transaction.
type RoutePlanner interface {
	// CreateRoutePlan plans the request's day for its employees from the
	// targets of its import jobs, or of the day (see
	// CreateRoutePlanRequest). Solves wait in the same bounded queue as
	// endpoint 6. Errors: InsufficientScope (route_suggestions.create),
	// InvalidRequest (routeDate missing, no employees or more than
	// MaxPlanEmployees, an employee twice, more targets than one plan takes,
	// a value JSON cannot hold, a bad key), NotFound (an import job,
	// employee or profile), RateLimited (the queue is full, with RetryAfter),
	// ServiceUnavailable (the road engine is down), IdempotencyKeyReused,
	// IdempotencyKeyInUse.
	CreateRoutePlan(ctx context.Context, caller Caller, req CreateRoutePlanRequest, opts WriteOptions) (RoutePlanOutcome, error)
	// CreateRoutePlanJSON is CreateRoutePlan with the JSON body of POST
	// {base_url}/route-plans. Errors: those of CreateRoutePlan, and
	// InvalidRequest for a body that is not a JSON object or has a field not
	// in the schema.
	CreateRoutePlanJSON(ctx context.Context, caller Caller, body []byte, opts WriteOptions) (RoutePlanOutcome, error)
	// GetRoutePlan returns a plan of the caller's tenant with its drafts.
	// Errors: InsufficientScope (import_jobs.read), NotFound.
	GetRoutePlan(ctx context.Context, caller Caller, id int64) (RoutePlan, error)
}

// ClientRegistry creates, authenticates, lists and revokes Integration Clients.
// API keys are `ick_` + 43 base64url characters; only their SHA-256 hash and their
// first 8 characters are stored, so a key is shown once, by CreateClient.
type ClientRegistry interface {
	// CreateClient creates a client and returns it with its API key.
	// Errors: InvalidRequest (a field beyond its bounds, an unknown scope,
	// or the tenant already has a client with this id).
	CreateClient(ctx context.Context, nc NewClient) (Client, string, error)
	// Authenticate returns the caller an API key belongs to.
	// Errors: Unauthorized, the same for a missing, malformed, unknown or
	// revoked key.
	Authenticate(ctx context.Context, apiKey string) (Caller, error)
	// ListClients lists the clients of tenantID, or of every tenant when it
	// is empty, by tenant and client id.
	ListClients(ctx context.Context, tenantID string) ([]Client, error)
	// RevokeClient revokes a client's key for good; revoking twice keeps the
	// first revocation. Errors: NotFound.
	RevokeClient(ctx context.Context, tenantID, clientID string) error
	// SetClientScopes replaces the scopes of a client's key, effective on the
	// key's next request, and returns the client. Errors: InvalidRequest (no
	// scope, an unknown one, or the key is revoked), NotFound.
	SetClientScopes(ctx context.Context, tenantID, clientID string, scopes []Scope) (Client, error)
}

// AppointmentOutcome is the result of submitting an appointment request.
type AppointmentOutcome struct {
	Request AppointmentRequest
	// Replayed is true when the outcome was stored by an earlier call with the same
	// idempotency key and nothing was executed.
	Replayed bool
}

// CancelAppointmentOutcome is the result of cancelling an appointment request.
type CancelAppointmentOutcome struct {
	Response CancelAppointmentResponse
	// Replayed is true when the outcome was stored by an earlier call with the same
	// idempotency key and nothing was executed.
	Replayed bool
}

// AppointmentService keeps appointment requests and their lifecycle (the table
// appointments.Transitions). Every write runs in one store transaction
// together with its status history, its events and its idempotency record.
type AppointmentService interface {
	// SubmitAppointmentRequest creates a request as Submitted and runs the
	// automatic checks in the same transaction, so it is returned Validated or
	// PendingReview. Errors: InsufficientScope (appointment_requests.write),
	// InvalidRequest (a bound violated, with the field path; a value JSON
	// cannot hold; a bad key), IdempotencyKeyReused, IdempotencyKeyInUse.
	SubmitAppointmentRequest(ctx context.Context, caller Caller, req NewAppointmentRequest, opts WriteOptions) (AppointmentOutcome, error)
	// SubmitAppointmentRequestJSON is SubmitAppointmentRequest with the JSON
	// body. Errors: those of SubmitAppointmentRequest, and InvalidRequest for
	// a body that is not a JSON object, has a field not in the schema at any
	// depth, or more than MaxPreferredTimeWindows windows.
	SubmitAppointmentRequestJSON(ctx context.Context, caller Caller, body []byte, opts WriteOptions) (AppointmentOutcome, error)
	// GetAppointmentRequest returns one request of the caller's tenant.
	// Errors: InsufficientScope (appointment_requests.read), NotFound.
	GetAppointmentRequest(ctx context.Context, caller Caller, id string) (AppointmentRequest, error)
	// AppointmentRequestStatus returns a request's status with its history.
	// Errors: InsufficientScope (appointment_requests.read), NotFound.
	AppointmentRequestStatus(ctx context.Context, caller Caller, id string) (AppointmentStatusResponse, error)
	// CancelAppointmentRequest cancels a request that has not started yet;
	// cancelling a Cancelled one answers the original cancellation.
	// Errors: InsufficientScope (appointment_requests.write), InvalidRequest
	// (reason missing or too long, an unknown cancelledBy, a value JSON cannot
	// hold, a bad key), NotFound, InvalidStateTransition (InProgress or
	// final), IdempotencyKeyReused, IdempotencyKeyInUse.
	CancelAppointmentRequest(ctx context.Context, caller Caller, id string, req CancelAppointmentRequest, opts WriteOptions) (CancelAppointmentOutcome, error)
	// CancelAppointmentRequestJSON is CancelAppointmentRequest with the JSON
	// body. Errors: those of CancelAppointmentRequest, and InvalidRequest for
	// a body that is not a JSON object or has a field not in the schema.
	CancelAppointmentRequestJSON(ctx context.Context, caller Caller, id string, body []byte, opts WriteOptions) (CancelAppointmentOutcome, error)
	// TransitionAppointmentRequest performs a host action (accept, reject,
	// schedule, assign, start, complete, fail) on a request of tenantID; note,
	// when not empty, is kept in the history. Errors: InvalidRequest (not a
	// host action), NotFound, InvalidStateTransition.
	TransitionAppointmentRequest(ctx context.Context, tenantID, id string, action AppointmentAction, note string) (AppointmentStatusResponse, error)
	// ListAppointmentRequests returns up to limit requests of tenantID with
	// status (every status when empty) whose id sorts after the cursor after
	// (from the start when empty). limit < 1 means DefaultTake; above MaxTake it
	// is MaxTake. Errors: InvalidRequest (an unknown status).
	ListAppointmentRequests(ctx context.Context, tenantID string, status AppointmentStatus, after string, limit int) (AppointmentRequestPage, error)
}

// WebhookSubscriptionOutcome is the result of a create or a rotation.
type WebhookSubscriptionOutcome struct {
	Subscription WebhookSubscriptionWithSecret
	// Replayed is true when the outcome was stored by an earlier call with the
	// same idempotency key and nothing was executed.
	Replayed bool
}

// WebhookSubscriptionService lets Integration Clients manage their tenant's
// webhook subscriptions; every method requires webhooks.manage. The writes
// that return a secret are idempotent like every write.
type WebhookSubscriptionService interface {
	// CreateWebhookSubscription creates an enabled subscription and returns it
	// with its signing secret; it receives the events after it.
	// Errors: InsufficientScope, InvalidRequest (a URL that is not https or
	// breaks the URL rules, an unknown or missing event kind, a value JSON
	// cannot hold, a bad key), IdempotencyKeyReused, IdempotencyKeyInUse.
	CreateWebhookSubscription(ctx context.Context, caller Caller, req WebhookSubscriptionRequest, opts WriteOptions) (WebhookSubscriptionOutcome, error)
	// CreateWebhookSubscriptionJSON is CreateWebhookSubscription with the
	// JSON body. Errors: those of CreateWebhookSubscription, and
	// InvalidRequest for a body that is not a JSON object or has a field not
	// in the schema.
	CreateWebhookSubscriptionJSON(ctx context.Context, caller Caller, body []byte, opts WriteOptions) (WebhookSubscriptionOutcome, error)
	// ListWebhookSubscriptions lists the caller's tenant's subscriptions by
	// id, without secrets. Errors: InsufficientScope.
	ListWebhookSubscriptions(ctx context.Context, caller Caller) (WebhookSubscriptionList, error)
	// GetWebhookSubscription returns one subscription of the caller's tenant.
	// Errors: InsufficientScope, NotFound.
	GetWebhookSubscription(ctx context.Context, caller Caller, id int64) (WebhookSubscriptionInfo, error)
	// DeleteWebhookSubscription removes a subscription and stops its
	// deliveries. Errors: InsufficientScope, NotFound.
	DeleteWebhookSubscription(ctx context.Context, caller Caller, id int64) error
	// RotateWebhookSubscriptionSecret gives a subscription a new secret and
	// returns it; deliveries carry signatures by both secrets for the
	// service's overlap (24 hours by default), then by the new one only.
	// Errors: InsufficientScope, InvalidRequest (a bad key), NotFound,
	// IdempotencyKeyReused, IdempotencyKeyInUse.
	RotateWebhookSubscriptionSecret(ctx context.Context, caller Caller, id int64, opts WriteOptions) (WebhookSubscriptionOutcome, error)
	// EnableWebhookSubscription turns deliveries on again, whoever disabled
	// them: they resume at the first event not yet delivered, at once.
	// Enabling an enabled subscription changes nothing. Errors:
	// InsufficientScope, NotFound.
	EnableWebhookSubscription(ctx context.Context, caller Caller, id int64) (WebhookSubscriptionInfo, error)
	// DisableWebhookSubscription stops deliveries; events go on being kept
	// (for the retention period) and are delivered once it is enabled again.
	// Errors: InsufficientScope, NotFound.
	DisableWebhookSubscription(ctx context.Context, caller Caller, id int64) (WebhookSubscriptionInfo, error)
	// ListDeliveryAttempts returns a page of a subscription's delivery
	// attempts, newest first, before the attempt id before (0: the newest).
	// limit < 1 means DefaultTake; above MaxTake it is MaxTake. Errors:
	// InsufficientScope, NotFound.
	ListDeliveryAttempts(ctx context.Context, caller Caller, id int64, before int64, limit int) (DeliveryAttemptPage, error)
	// ReplayWebhookSubscription delivers again, in order, every event of the
	// subscription's kinds created since req.Since or after req.AfterEventID,
	// before the live stream goes on. Errors: InsufficientScope,
	// InvalidRequest (neither or both of since and afterEventId, a bad key),
	// NotFound (the subscription, or the event named), RateLimited (too many
	// replays pending), IdempotencyKeyReused, IdempotencyKeyInUse.
	ReplayWebhookSubscription(ctx context.Context, caller Caller, id int64, req ReplayRequest, opts WriteOptions) (ReplayOutcome, error)
	// ResendWebhookEvent delivers one event again to the subscription,
	// before the live stream goes on. Errors: those of
	// ReplayWebhookSubscription, and InvalidRequest for an event of a kind
	// the subscription does not receive.
	ResendWebhookEvent(ctx context.Context, caller Caller, id int64, req ResendRequest, opts WriteOptions) (ReplayOutcome, error)
	// TestWebhookSubscription sends a ping event to the subscription through
	// the delivery path (its URL rules, signatures and timeout), enabled or
	// not, records the attempt and returns it. A failed ping is an outcome,
	// not an error; it changes neither the subscription's state nor its
	// stream. Errors: InsufficientScope, NotFound, InvalidRequest (a bad
	// key), IdempotencyKeyReused, IdempotencyKeyInUse.
	TestWebhookSubscription(ctx context.Context, caller Caller, id int64, opts WriteOptions) (TestOutcome, error)
}

// ---------------------------------------------------------------------------
// Reading requests: limits, decoding, encoding and field paths

// MaxObjectMembers is the most members any JSON object in a request may have
// (beyond the bounds of Limits): a body is read once and never decoded
// whole, but every name of an object must be remembered to find one given
// twice.
const MaxObjectMembers = 1000

// MaxStringBytes is the longest string a request may hold, in bytes: more
// than any field allows (the longest, a description, is 10,000 characters),
// so a longer one is refused before it is decoded.
const MaxStringBytes = 64 << 10

// Bound caps a top-level member of a request object: at most Max elements
// (an array) or members (an object); beyond, the refusal has Code.
type Bound struct {
	Max  int
	Code ErrorCode
}

// Limits are what CheckJSON enforces beyond the strictness rules.
type Limits struct {
	// What names the document in messages: "batch", "target", "cancel request".
	What string
	// Bounds caps top-level members by name.
	Bounds map[string]Bound
	// Opaque names a top-level member whose elements are only counted (its
	// Bound) and skipped unread: the batch's targets, each checked on its own.
	Opaque string
}

// CheckJSON reads body once as a stream of tokens, without decoding it, and
// refuses at the first fault, so a hostile body costs a fixed amount of memory
// whatever its size (DECISIONS.md "Bounded cost of every request"):
//   - it is not one JSON object (InvalidRequest);
//   - a member name is given twice in one object, or a string or name is not
//     valid UTF-8 (InvalidRequest, naming the path);
//   - an object has more than MaxObjectMembers members, or a string more than
//     MaxStringBytes bytes (InvalidRequest);
//   - a bounded member holds more than its Bound: the refusal comes at the
//     first element beyond it, with the Bound's code.
//
// The error's message names the field; a caller checking one item of a batch
// uses it as the item's problem.
func CheckJSON(body []byte, l Limits) error {
	c := checkers.Get().(*checker)
	defer c.release()
	c.limits = l
	c.input = *bytes.NewBuffer(body)
	c.dec.Reset(&c.input, jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	if kind := c.dec.PeekKind(); kind != '{' {
		if _, err := c.dec.ReadToken(); err != nil {
			return c.syntax(err)
		}
		return Errorf(CodeInvalidRequest, "the %s must be a JSON object", l.What)
	}
	if err := c.object(0, nil); err != nil {
		return err
	}
	if _, err := c.dec.ReadToken(); err != io.EOF {
		return Errorf(CodeInvalidRequest, "the %s is not valid JSON: there is more after the object", l.What)
	}
	return nil
}

// checker is the state of one CheckJSON: the names of the objects being
// read, one set per depth, reused from object to object and, through
// checkers, from call to call (a batch checks a thousand targets).
type checker struct {
	dec     *jsontext.Decoder
	input   bytes.Buffer // read in place by dec
	limits  Limits
	seed    maphash.Seed
	names   []map[uint64]struct{}
	scratch []byte
}

var checkers = sync.Pool{New: func() any {
	c := &checker{seed: maphash.MakeSeed()}
	c.dec = jsontext.NewDecoder(&c.input)
	return c
}}

// release returns c to checkers without the body it read.
func (c *checker) release() {
	c.input = bytes.Buffer{}
	c.dec.Reset(&c.input)
	checkers.Put(c)
}

func (c *checker) value(depth int, bound *bounded) error {
	switch c.dec.PeekKind() {
	case '{':
		return c.object(depth, bound)
	case '[':
		return c.array(depth, bound)
	}
	raw, err := c.dec.ReadValue()
	if err != nil {
		return c.syntax(err)
	}
	if raw.Kind() != '"' {
		return nil
	}
	if len(raw) > MaxStringBytes+2 {
		return Errorf(CodeInvalidRequest, "%s is longer than %d bytes, more than any field holds", c.path(), MaxStringBytes)
	}
	if !utf8.Valid(raw) {
		return Errorf(CodeInvalidRequest, "%s must be valid UTF-8", c.path())
	}
	if escapesNUL(raw) {
		return Errorf(CodeInvalidRequest, "%s must not contain the NUL character (\\u0000)", c.path())
	}
	return nil
}

// escapesNUL reports whether the JSON string token raw holds the escape
// \u0000 (JSON cannot hold a NUL byte unescaped). No field has a use for
// NUL, and PostgreSQL cannot store it in text, so it is refused like invalid
// UTF-8 whatever the store.
func escapesNUL(raw []byte) bool {
	for i := 0; i < len(raw)-1; i++ {
		if raw[i] != '\\' {
			continue
		}
		if raw[i+1] == 'u' && i+6 <= len(raw) && string(raw[i+2:i+6]) == "0000" {
			return true
		}
		i++ // the escaped character, which may be a backslash
	}
	return false
}

// bounded is a Bound at work: the member it caps and whether its elements
// are skipped unread.
type bounded struct {
	Bound
	name   string
	opaque bool
}

func (b *bounded) exceeded(n int) error {
	if b == nil || n <= b.Max {
		return nil
	}
	return Errorf(b.Code, "%s must have at most %d entries", b.name, b.Max)
}

func (c *checker) object(depth int, bound *bounded) error {
	if _, err := c.dec.ReadToken(); err != nil {
		return c.syntax(err)
	}
	names := c.nameSet(depth)
	for n := 1; c.dec.PeekKind() != '}'; n++ {
		raw, err := c.dec.ReadValue()
		if err != nil {
			return c.syntax(err)
		}
		if err := bound.exceeded(n); err != nil {
			return err
		}
		if n > MaxObjectMembers {
			return Errorf(CodeInvalidRequest, "%s has more than %d members", c.objectPath(), MaxObjectMembers)
		}
		if len(raw) > MaxStringBytes+2 {
			return Errorf(CodeInvalidRequest, "a member name of %s is longer than %d bytes", c.objectPath(), MaxStringBytes)
		}
		if !utf8.Valid(raw) {
			return Errorf(CodeInvalidRequest, "a member name of %s is not valid UTF-8", c.objectPath())
		}
		if c.scratch, err = jsontext.AppendUnquote(c.scratch[:0], raw); err != nil {
			return c.syntax(err)
		}
		h := maphash.Bytes(c.seed, c.scratch)
		if _, twice := names[h]; twice {
			return Errorf(CodeInvalidRequest, "%s is given twice", c.path())
		}
		names[h] = struct{}{}
		if err := c.member(depth, c.scratch); err != nil {
			return err
		}
	}
	_, err := c.dec.ReadToken()
	return c.syntax(err)
}

// member checks the value of a member; at the top level it applies the
// member's Bound. name is only valid until the value is read.
func (c *checker) member(depth int, name []byte) error {
	if depth > 0 {
		return c.value(depth+1, nil)
	}
	b, ok := c.limits.Bounds[string(name)]
	opaque := string(name) == c.limits.Opaque
	if !ok && opaque {
		return c.syntax(c.dec.SkipValue())
	}
	if !ok {
		return c.value(depth+1, nil)
	}
	return c.value(depth+1, &bounded{Bound: b, name: string(name), opaque: opaque})
}

func (c *checker) array(depth int, bound *bounded) error {
	if _, err := c.dec.ReadToken(); err != nil {
		return c.syntax(err)
	}
	for n := 1; c.dec.PeekKind() != ']'; n++ {
		if err := bound.exceeded(n); err != nil {
			return err
		}
		var err error
		if bound != nil && bound.opaque {
			err = c.syntax(c.dec.SkipValue())
		} else {
			err = c.value(depth+1, nil)
		}
		if err != nil {
			return err
		}
	}
	_, err := c.dec.ReadToken()
	return c.syntax(err)
}

// nameSet returns the emptied set of member names for an object at depth.
func (c *checker) nameSet(depth int) map[uint64]struct{} {
	for len(c.names) <= depth {
		c.names = append(c.names, map[uint64]struct{}{})
	}
	clear(c.names[depth])
	return c.names[depth]
}

// path is the field path of the value just read, cut for messages.
func (c *checker) path() string {
	if p := FieldPath(c.dec.StackPointer()); p != "" {
		return Cut(p)
	}
	return "the " + c.limits.What
}

// objectPath is the path of the object whose member name was just read.
func (c *checker) objectPath() string {
	if s := FieldPath(c.dec.StackPointer().Parent()); s != "" {
		return Cut(s)
	}
	return "the " + c.limits.What
}

// syntax words a syntax error with its place; nil stays nil.
func (c *checker) syntax(err error) error {
	if err == nil {
		return nil
	}
	return Errorf(CodeInvalidRequest, "%s", DecodeProblem(err, c.limits.What))
}

// RequireObject refuses a body that is not one JSON object, with an
// InvalidRequest error.
func RequireObject(body []byte, opts ...json.Options) error {
	raw := jsontext.Value(body)
	if !raw.IsValid(opts...) {
		return Errorf(CodeInvalidRequest, "the request body is not valid JSON")
	}
	if raw.Kind() != '{' {
		return Errorf(CodeInvalidRequest, "the request body must be a JSON object")
	}
	return nil
}

// DecodeProblem words an error of decoding JSON into a Go value (with
// github.com/go-json-experiment/json) as a message naming the field path, in the
// same form as Validate: "planning.estimatedWorkMinutes must be an integer, not a
// string", "preferredTimeWindows[0] must be an object". what names the decoded
// document ("target", "cancel request") for problems of the document itself.
func DecodeProblem(err error, what string) string {
	var syntactic *jsontext.SyntacticError
	if errors.As(err, &syntactic) {
		if path := FieldPath(syntactic.JSONPointer); path != "" {
			return fmt.Sprintf("%s is not valid JSON: %v", path, syntactic.Err)
		}
		return fmt.Sprintf("the %s is not valid JSON: %v", what, syntactic.Err)
	}
	var semantic *json.SemanticError
	if !errors.As(err, &semantic) {
		return fmt.Sprintf("the %s is not valid JSON", what)
	}
	path := FieldPath(semantic.JSONPointer)
	switch {
	case path == "":
		return fmt.Sprintf("the %s must be a JSON object", what)
	case errors.Is(semantic.Err, json.ErrUnknownName):
		return fmt.Sprintf("%s is not a field of the %s (field names are case-sensitive)", path, what)
	case semantic.GoType == nil:
		return path + " is invalid"
	}
	return fmt.Sprintf("%s must be %s%s", path, describeType(semantic.GoType), received(semantic))
}

// DecodeObject decodes body, which must be one JSON object, into v. Every
// problem is an InvalidRequest error whose message says what is wrong and
// where: the body is not JSON, not an object, breaks the strictness rules of
// CheckJSON, or a member has the wrong type (DecodeProblem). opts go to the
// JSON decoder, e.g. json.RejectUnknownMembers(true) for a body without a
// warnings channel.
func DecodeObject(body []byte, v any, what string, opts ...json.Options) error {
	return DecodeBounded(body, v, Limits{What: what}, opts...)
}

// DecodeBounded is DecodeObject with the bounds of l: body is checked by
// CheckJSON first, so nothing is decoded from a body beyond a limit.
func DecodeBounded(body []byte, v any, l Limits, opts ...json.Options) error {
	if err := CheckJSON(body, l); err != nil {
		return err
	}
	// CheckJSON found any name given twice, at a bounded cost; the decoder's
	// own check keeps every name of an object in memory.
	opts = append(opts, jsontext.AllowDuplicateNames(true))
	if err := json.Unmarshal(body, v, opts...); err != nil {
		problem := Errorf(CodeInvalidRequest, "%s", DecodeProblem(err, l.What))
		if errors.Is(err, json.ErrUnknownName) {
			// A caller refusing unknown members (json.RejectUnknownMembers)
			// to learn whether there are any can tell this refusal apart.
			return errors.Mark(problem, json.ErrUnknownName)
		}
		return problem
	}
	return nil
}

// EncodeRequest is the JSON of a request given as a Go value. Every typed entry
// point of the services encodes its request and takes the JSON entry point's
// path, so a Go caller gets exactly what an HTTP caller sending that JSON
// gets, and both fingerprint alike. A value JSON cannot hold is refused as an
// InvalidRequest naming its field, whether or not the write carries an
// idempotency key: a string that is not valid UTF-8, a NaN or infinite
// number, raw JSON (metadata) that is not JSON.
func EncodeRequest(v any) ([]byte, error) {
	body, err := json.Marshal(v)
	if err == nil {
		return body, nil
	}
	// Encoding a Go value fails only on values: a float that is not finite and
	// raw JSON that is not JSON are semantic errors; a string that is not UTF-8
	// is the one syntactic error of an encoder writing Go strings.
	var semantic *json.SemanticError
	var syntactic *jsontext.SyntacticError
	switch {
	case errors.As(err, &semantic) && semantic.GoType != nil && (semantic.GoType.Kind() == reflect.Float64 || semantic.GoType.Kind() == reflect.Float32):
		return nil, Errorf(CodeInvalidRequest, "%s must be a finite number", encodedPath(semantic.JSONPointer))
	case errors.As(err, &semantic):
		return nil, Errorf(CodeInvalidRequest, "%s is not valid JSON", encodedPath(semantic.JSONPointer))
	case errors.As(err, &syntactic):
		return nil, Errorf(CodeInvalidRequest, "%s must be valid UTF-8", encodedPath(syntactic.JSONPointer))
	}
	return nil, errors.Wrap(err, "encoding a request")
}

// encodedPath is the field path of a value that could not be encoded; the
// request itself when the pointer is empty.
func encodedPath(p jsontext.Pointer) string {
	if path := FieldPath(p); path != "" {
		return path
	}
	return "the request"
}

// FieldPath turns a JSON pointer (/preferredTimeWindows/0/endUtc) into the path
// used in messages (preferredTimeWindows[0].endUtc).
//
// A member name that is not a plain word (letters, digits, _, $, -) is quoted,
// so a name with spaces or dots reads as one name: note."a b".
func FieldPath(p jsontext.Pointer) string {
	var b strings.Builder
	for tok := range p.Tokens() {
		switch {
		case tok != "" && strings.Trim(tok, "0123456789") == "":
			b.WriteString("[" + tok + "]")
		case b.Len() > 0:
			b.WriteString("." + plainName(tok))
		default:
			b.WriteString(plainName(tok))
		}
	}
	return b.String()
}

// plainName is name, quoted unless it is a plain word.
func plainName(name string) string {
	for _, r := range name {
		if !(r == '_' || r == '$' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return strconv.Quote(name)
		}
	}
	if name == "" {
		return `""`
	}
	return name
}

var (
	timeType      = reflect.TypeFor[time.Time]()
	dateType      = reflect.TypeFor[Date]()
	jsonValueType = reflect.TypeFor[jsontext.Value]()
)

// describeType says in words what JSON a Go type takes.
func describeType(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t {
	case timeType:
		return "an RFC 3339 date-time such as 2026-11-21T08:00:00Z"
	case dateType:
		return "a date such as 2026-11-21"
	case jsonValueType:
		return "valid JSON"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "an array"
	}
	return "an object"
}

// received says what was sent instead, when the decoder knows. A string sent
// for a date or date-time is the right kind in the wrong format: nothing to add.
func received(e *json.SemanticError) string {
	t := e.GoType
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if e.JSONKind == '"' && (t == timeType || t == dateType) {
		return ""
	}
	if e.JSONValue != nil {
		return ", not " + string(e.JSONValue)
	}
	switch e.JSONKind {
	case '"':
		return ", not a string"
	case '0':
		return ", not a number"
	case 't', 'f':
		return ", not a boolean"
	case '{':
		return ", not an object"
	case '[':
		return ", not an array"
	}
	return ""
}

// ---------------------------------------------------------------------------
// Validation: the validate tags

// Validate checks v against its `validate` tags and returns an InvalidRequest
// *Error whose message names every failing field by its JSON path, e.g.
// "planning.estimatedWorkMinutes must be between 5 and 480". It returns nil when v
// is valid.
func Validate(v any) error {
	err := validate().Struct(v)
	if err == nil {
		return nil
	}
	var fieldErrs validator.ValidationErrors
	if !errors.As(err, &fieldErrs) {
		return errors.Wrap(err, "validating")
	}
	msgs := make([]string, len(fieldErrs))
	for i, fe := range fieldErrs {
		msgs[i] = fieldMessage(fe)
	}
	return &Error{Code: CodeInvalidRequest, Message: strings.Join(msgs, "; ")}
}

var (
	validatorOnce sync.Once
	validatorInst *validator.Validate
)

func validate() *validator.Validate {
	validatorOnce.Do(func() {
		v := validator.New(validator.WithRequiredStructEnabled())
		v.RegisterTagNameFunc(jsonName)
		must(v.RegisterValidation("notblank", validators.NotBlank))
		must(v.RegisterValidation("between", between))
		must(v.RegisterValidation("clock", isClock))
		must(v.RegisterValidation("operation", func(fl validator.FieldLevel) bool { return Operation(fl.Field().String()).Valid() }))
		must(v.RegisterValidation("membername", isMemberName))
		v.RegisterStructValidation(validatePlanning, InboundTargetPlanning{})
		registerAppointmentValidations(v)
		validatorInst = v
	})
	return validatorInst
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "-" {
		return ""
	}
	if name == "" {
		return f.Name
	}
	return name
}

// between is the validator for `between=LOW:HIGH`, an inclusive numeric range. It
// exists so the message can name both bounds ("must be between 5 and 480").
func between(fl validator.FieldLevel) bool {
	low, high := betweenBounds(fl.Param())
	f := fl.Field()
	var x float64
	switch f.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		x = float64(f.Int())
	case reflect.Float32, reflect.Float64:
		x = f.Float()
	default:
		panic(fmt.Sprintf("between on unsupported kind %s", f.Kind()))
	}
	return x >= low && x <= high
}

func betweenBounds(param string) (low, high float64) {
	lo, hi, ok := strings.Cut(param, ":")
	l, err1 := strconv.ParseFloat(lo, 64)
	h, err2 := strconv.ParseFloat(hi, 64)
	if !ok || err1 != nil || err2 != nil {
		panic(fmt.Sprintf("between: bad parameter %q", param))
	}
	return l, h
}

// ParseClock parses a time of day "HH:MM" (00:00 to 23:59) into minutes after
// midnight.
func ParseClock(s string) (int, error) {
	t, err := time.Parse("15:04", s)
	if err != nil || len(s) != 5 {
		return 0, errors.Newf("%q is not a time of day HH:MM", s)
	}
	return t.Hour()*60 + t.Minute(), nil
}

func isClock(fl validator.FieldLevel) bool {
	_, err := ParseClock(fl.Field().String())
	return err == nil
}

// validatePlanning holds the one rule that spans two fields of a target.
func validatePlanning(sl validator.StructLevel) {
	p := sl.Current().Interface().(InboundTargetPlanning)
	if p.TimeWindowStartUtc != nil && p.TimeWindowEndUtc != nil && !p.TimeWindowStartUtc.Before(*p.TimeWindowEndUtc) {
		sl.ReportError(p.TimeWindowEndUtc, "timeWindowEndUtc", "TimeWindowEndUtc", "afterstart", "")
	}
}

// isMemberName checks a map key used as a JSON member name: not blank, and at
// most the parameter's number of characters.
func isMemberName(fl validator.FieldLevel) bool {
	name := fl.Field().String()
	limit, err := strconv.Atoi(fl.Param())
	if err != nil {
		panic(fmt.Sprintf("membername: bad parameter %q", fl.Param()))
	}
	return strings.TrimSpace(name) != "" && utf8.RuneCountInString(name) <= limit
}

// memberNameMessage words a refused map key: the key may be empty or odd, so
// the message names the object that holds it, not the key.
func memberNameMessage(fe validator.FieldError, object string) string {
	if strings.TrimSpace(fe.Value().(string)) == "" {
		return "a member name of " + object + " must not be blank"
	}
	return fmt.Sprintf("a member name of %s must be at most %s characters", object, fe.Param())
}

// fieldPathOf is the JSON path of the value a validation error is about, in
// the form of FieldPath. The validator names a map member object[key]; here
// it becomes object.key (quoted when odd), as the decoder's messages name it.
func fieldPathOf(fe validator.FieldError) (path, object string) {
	path = fe.Namespace()
	if _, rest, ok := strings.Cut(path, "."); ok {
		path = rest // drop the Go type name of the root
	}
	field := fe.Field()
	name, key, isMember := strings.Cut(field, "[")
	if !isMember {
		return path, ""
	}
	object = strings.TrimSuffix(path, field) + name
	if !strings.HasSuffix(key, "]") || strings.Trim(key[:len(key)-1], "0123456789") == "" {
		return path, object // an array element [n], or a member named with digits: already FieldPath's form
	}
	return object + "." + plainName(key[:len(key)-1]), object
}

func fieldMessage(fe validator.FieldError) string {
	path, object := fieldPathOf(fe)
	if fe.Tag() == "membername" {
		return memberNameMessage(fe, object)
	}
	if msg, ok := appointmentFieldMessage(fe, path); ok {
		return msg
	}
	switch fe.Tag() {
	case "required", "notblank":
		if fe.Tag() == "required" && fe.Kind() != reflect.String {
			return path + " is required" // an object or a date-time: "blank" means nothing
		}
		if fe.Kind() == reflect.String && strings.Contains(path, "[") {
			return path + " must not be empty"
		}
		return path + " is required and must not be blank"
	case "max":
		if fe.Kind() == reflect.Map || fe.Kind() == reflect.Slice {
			return fmt.Sprintf("%s must have at most %s entries", path, fe.Param())
		}
		return fmt.Sprintf("%s must be at most %s characters", path, fe.Param())
	case "min":
		if fe.Kind() == reflect.Map || fe.Kind() == reflect.Slice {
			return fmt.Sprintf("%s must have at least %s entries", path, fe.Param())
		}
		return fmt.Sprintf("%s must be at least %s characters", path, fe.Param())
	case "between":
		lo, hi, _ := strings.Cut(fe.Param(), ":")
		return fmt.Sprintf("%s must be between %s and %s", path, lo, hi)
	case "email":
		return path + " must be a valid email address"
	case "url":
		return path + " must be an absolute URI with a scheme, like https://example.com"
	case "oneof":
		return fmt.Sprintf("%s must be one of: %s", path, strings.ReplaceAll(fe.Param(), " ", ", "))
	case "operation":
		return UnknownOperation(path)
	case "afterstart":
		return path + " must be after planning.timeWindowStartUtc"
	case "clock":
		return path + " must be a time of day HH:MM, like 08:00"
	case "timezone":
		return path + " must be an IANA time zone, like Europe/Berlin"
	case "printascii":
		return path + " must contain only printable ASCII characters"
	}
	return fmt.Sprintf("%s is invalid (%s)", path, fe.Tag())
}

// registerAppointmentValidations adds the rules of appointment requests that
// tags alone cannot say: metadata must be a JSON object of bounded size, and a
// time window must end after it starts.
func registerAppointmentValidations(v *validator.Validate) {
	must(v.RegisterValidation("jsonobject", isJSONObject))
	must(v.RegisterValidation("maxbytes", maxBytes))
	v.RegisterStructValidation(validateTimeWindow, AppointmentTimeWindow{})
}

func isJSONObject(fl validator.FieldLevel) bool {
	v, ok := fl.Field().Interface().(jsontext.Value)
	return ok && v.IsValid() && v.Kind() == '{'
}

// maxBytes is `maxbytes=N` for byte slices such as raw JSON; the built-in max
// would call the bytes "entries".
func maxBytes(fl validator.FieldLevel) bool {
	limit, err := strconv.Atoi(fl.Param())
	if err != nil {
		panic(fmt.Sprintf("maxbytes: bad parameter %q", fl.Param()))
	}
	return fl.Field().Len() <= limit
}

func validateTimeWindow(sl validator.StructLevel) {
	w := sl.Current().Interface().(AppointmentTimeWindow)
	if !w.StartUtc.IsZero() && !w.EndUtc.IsZero() && !w.StartUtc.Before(w.EndUtc) {
		sl.ReportError(w.EndUtc, "endUtc", "EndUtc", "after", "startUtc")
	}
}

// appointmentFieldMessage words the failures of the tags above; ok is false for
// any other tag.
func appointmentFieldMessage(fe validator.FieldError, path string) (msg string, ok bool) {
	switch fe.Tag() {
	case "after":
		sibling := fe.Param()
		if i := strings.LastIndex(path, "."); i >= 0 {
			sibling = path[:i+1] + sibling
		}
		return fmt.Sprintf("%s must be after %s", path, sibling), true
	case "jsonobject":
		return path + " must be a JSON object", true
	case "maxbytes":
		return fmt.Sprintf("%s must be at most %s bytes of compact JSON", path, fe.Param()), true
	}
	return "", false
}
