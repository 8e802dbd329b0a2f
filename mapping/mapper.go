package mapping

import (
	"fmt"
	"time"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/store"
)

// Mapper maps the items of one import inside its transaction. It belongs to
// that transaction: make a new one when the transaction function runs again.
// It remembers the records it read until it writes, so while it is in use,
// customer records must change only through it.
type Mapper struct {
	tx       store.Tx
	tenantID string
	settings store.MappingSettings
	now      time.Time
	// seen remembers reads until the next write (see reads.go).
	seen map[lookup]any
}

// NewMapper returns a Mapper for the items of tenantID in tx. settings are the
// tenant's (tx.MappingSettings), read once per import; now stamps the records
// it creates or changes.
func NewMapper(tx store.Tx, tenantID string, settings store.MappingSettings, now time.Time) *Mapper {
	return &Mapper{tx: tx, tenantID: tenantID, settings: settings, now: now, seen: map[lookup]any{}}
}

// Map links the customer, location and contact of t, a target of sourceSystem,
// creating or updating records as the package documentation describes. Its
// error is a store fault, which must fail the import; every other problem is
// reported in the outcome.
func (m *Mapper) Map(sourceSystem string, t *connect.InboundTarget) (Outcome, error) {
	if !HasData(t) {
		return Unmapped(t), nil
	}
	r := &result{}
	if err := m.mapCustomer(r, sourceSystem, t.Customer); err != nil {
		return Outcome{}, err
	}
	if r.customer == nil {
		r.orphans(t)
		return r.outcome(), nil
	}
	if err := m.mapLocation(r, t.Location, t.Address); err != nil {
		return Outcome{}, err
	}
	if err := m.mapContact(r, t.Contact); err != nil {
		return Outcome{}, err
	}
	return r.outcome(), nil
}

// result collects what the steps of one item found and linked.
type result struct {
	status   connect.CustomerMappingStatus
	warnings []connect.CustomerMappingWarning
	errors   []string
	customer *store.Customer
	location *store.CustomerLocation
	contact  *store.CustomerContact
}

// save ends the update step of a matched record: Mapped when nothing changed;
// otherwise the record is stamped updatedAt, written, and the step is Updated
// (or Failed when the write is refused).
func (m *Mapper) save(r *result, what string, changed bool, updatedAt *time.Time, write func() error) error {
	if !changed {
		r.note(connect.MappingMapped)
		return nil
	}
	*updatedAt = m.now
	m.forget() // the write changes what earlier reads saw
	if err := write(); err != nil {
		return r.saved(what, err)
	}
	r.note(connect.MappingUpdated)
	return nil
}

// writable reports whether imports may change the linked customer and add to it.
func (r *result) writable() bool { return r.customer.State == store.CustomerActive }

func (r *result) note(s connect.CustomerMappingStatus) { r.status = Combine(r.status, s) }

func (r *result) warn(w connect.CustomerMappingWarning) {
	r.warnings = append(r.warnings, w)
	r.note(connect.MappingWarning)
}

func (r *result) fail(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
	r.note(connect.MappingFailed)
}

// saved turns a refused write into a failed step; any other error is a store
// fault and returned.
func (r *result) saved(what string, err error) error {
	if cerr := connect.AsError(err); cerr != nil && cerr.Code != connect.CodeInternalError {
		r.fail("the %s could not be saved: %s", what, cerr.Message)
		return nil
	}
	return err
}

// orphans fails a location or contact sent without a customer to hold it.
// When a customer was sent but not linked, its own warning or error says why.
func (r *result) orphans(t *connect.InboundTarget) {
	if t.Customer != nil {
		return
	}
	if t.Location != nil {
		r.fail("location was sent without a customer; send customer.externalId or customer.customerNumber to link it")
	}
	if t.Contact != nil {
		r.fail("contact was sent without a customer; send customer.externalId or customer.customerNumber to link it")
	}
}

func (r *result) outcome() Outcome {
	res := connect.InboundCustomerMappingResult{
		Status: r.status, Warnings: r.warnings, Errors: r.errors,
	}
	if res.Warnings == nil {
		res.Warnings = []connect.CustomerMappingWarning{}
	}
	if res.Errors == nil {
		res.Errors = []string{}
	}
	// The ids are copied: the records may be shared with later items.
	if r.customer != nil {
		res.CustomerID = clone(&r.customer.ID)
	}
	if r.location != nil {
		res.CustomerLocationID = clone(&r.location.ID)
	}
	if r.contact != nil {
		res.CustomerContactID = clone(&r.contact.ID)
	}
	return Outcome{Result: res, Location: r.location}
}

// set copies a sent value over a stored one and reports whether it changed.
func set[T comparable](dst *T, src *T) bool {
	if src == nil || *dst == *src {
		return false
	}
	*dst = *src
	return true
}

// setFolded is set for a value that records are matched by: spellings that
// fold to the same key are the same value, so two sources that write it
// differently do not overwrite each other on every import.
func setFolded(dst *string, src *string, fold func(string) string) bool {
	if src == nil || fold(*dst) == fold(*src) {
		return false
	}
	*dst = *src
	return true
}

// setPtr is set for a nullable stored value.
func setPtr[T comparable](dst **T, src *T) bool {
	if src == nil || (*dst != nil && **dst == *src) {
		return false
	}
	*dst = clone(src)
	return true
}

// anyOf reports whether any change happened; its arguments are all evaluated,
// unlike a chain of ||.
func anyOf(changed ...bool) bool {
	for _, c := range changed {
		if c {
			return true
		}
	}
	return false
}
