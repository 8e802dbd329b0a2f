package importer

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/mapping"
	"github.com/integration-connect/connect/store"
)

// run is one import, decoded and validated, ready to be applied in a transaction.
type run struct {
	caller connect.Caller
	// sourceSystem, batchID and operation are the batch's defaults ("" / nil for a
	// single import).
	sourceSystem string
	batchID      *string
	operation    connect.Operation
	items        []item
	now          time.Time
	// single is true for an import of one target (endpoint 2), whose outcome
	// says whether it created the target.
	single bool
	// mapper maps the items of one execution; see mapperFor.
	mapper *mapping.Mapper
	// targets are the stored targets the items name, read in one go when an
	// execution starts and kept current as items create and change them.
	targets map[store.TargetKey]*store.Target
}

// execute applies every item in order, so a later item sees the effects of
// earlier ones, and records the job with all item results and its
// import_job.completed event. It is a store.TxFunc: it starts afresh every
// time it runs.
func (r *run) execute(tx store.Tx) (connect.InboundImportResult, bool, error) {
	r.mapper = nil // it belonged to the transaction of an earlier run
	var err error
	if r.targets, err = tx.TargetsByExternalID(r.caller.TenantID, r.targetKeys()); err != nil {
		return connect.InboundImportResult{}, false, err
	}
	results := make([]connect.InboundImportItemResult, len(r.items))
	for i := range r.items {
		res, err := r.apply(tx, &r.items[i])
		if err != nil {
			return connect.InboundImportResult{}, false, err
		}
		results[i] = res
	}
	counters := connect.CountItems(results)
	job := &store.Job{TenantID: r.caller.TenantID, ClientID: r.caller.ClientID}
	job.SourceSystem = r.jobSourceSystem()
	job.BatchID = r.batchID
	job.Status = counters.Status()
	job.ImportCounters = counters
	job.CreatedAtUtc = r.now
	job.ProcessedAtUtc = &r.now
	job.Items = results
	if err := tx.CreateJob(job); err != nil {
		return connect.InboundImportResult{}, false, err
	}
	if err := store.AppendEvent(tx, r.caller.TenantID, connect.EventImportJobCompleted, r.now, job.ImportJobSummary); err != nil {
		return connect.InboundImportResult{}, false, err
	}
	created := r.single && results[0].Status == connect.ItemImported
	return connect.InboundImportResult{
		ImportJobID: job.ID, Status: job.Status, ImportCounters: counters, Items: results,
	}, created, nil
}

// targetKeys are the identities of the items that are not rejected already.
func (r *run) targetKeys() []store.TargetKey {
	keys := make([]store.TargetKey, 0, len(r.items))
	for i := range r.items {
		if it := &r.items[i]; it.problem == "" {
			keys = append(keys, r.keyOf(it))
		}
	}
	return keys
}

func (r *run) keyOf(it *item) store.TargetKey {
	return store.TargetKey{SourceSystem: r.sourceSystemOf(it), ExternalID: it.target.ExternalID}
}

func (r *run) jobSourceSystem() string {
	if r.sourceSystem != "" {
		return r.sourceSystem
	}
	if len(r.items) == 1 && r.items[0].target.SourceSystem != nil {
		return *r.items[0].target.SourceSystem
	}
	return r.caller.SourceSystem
}

// apply imports one item. Item-level problems become a Rejected result; only a
// store fault is returned as an error, failing the whole import. Only the
// items whose data is stored (create, update, upsert) are mapped; a rejected
// item or a cancel keeps the NotApplicable or Skipped of mapping.Unmapped.
func (r *run) apply(tx store.Tx, it *item) (connect.InboundImportItemResult, error) {
	res := connect.InboundImportItemResult{
		// A Go caller's externalId may not be valid UTF-8 (the item is then
		// rejected); the result must still be writable as JSON.
		ExternalID:      strings.ToValidUTF8(it.target.ExternalID, "\uFFFD"),
		Warnings:        slices.Clone(it.warnings),
		CustomerMapping: mapping.Unmapped(&it.target).Result,
	}
	if it.problem != "" {
		return reject(res, connect.CodeValidationFailed, it.problem, nil), nil
	}
	key := r.keyOf(it)
	existing := r.targets[key]
	switch r.operationOf(it) {
	case connect.OperationCreate:
		if existing != nil {
			return reject(res, connect.CodeTargetAlreadyExists, fmt.Sprintf("target %s already exists; use update or upsert to change it", connect.Quote(it.target.ExternalID)), &existing.ID), nil
		}
		return r.create(tx, res, it, key)
	case connect.OperationUpdate:
		if problem := updatable(existing, it); problem != nil {
			return reject(res, problem.Code, problem.Message, targetID(existing)), nil
		}
		return r.update(tx, res, it, existing)
	case connect.OperationCancel:
		return r.cancel(tx, res, it, existing)
	}
	if existing == nil {
		return r.create(tx, res, it, key)
	}
	return r.update(tx, res, it, existing)
}

// sourceSystemOf resolves an item's source system: its own, else the batch's,
// else the client's.
func (r *run) sourceSystemOf(it *item) string {
	switch {
	case it.target.SourceSystem != nil:
		return *it.target.SourceSystem
	case r.sourceSystem != "":
		return r.sourceSystem
	}
	return r.caller.SourceSystem
}

// operationOf resolves an item's operation: its own, else the batch's, else upsert.
func (r *run) operationOf(it *item) connect.Operation {
	switch {
	case it.target.Operation != "":
		return it.target.Operation
	case r.operation != "":
		return r.operation
	}
	return connect.OperationUpsert
}

func updatable(existing *store.Target, it *item) *connect.Error {
	switch {
	case existing == nil:
		return &connect.Error{Code: connect.CodeTargetNotFound, Message: fmt.Sprintf("target %s does not exist; use create or upsert", connect.Quote(it.target.ExternalID))}
	case existing.Status == store.TargetCancelled:
		return &connect.Error{Code: connect.CodeTargetCancelled, Message: fmt.Sprintf("target %s is cancelled; use upsert to reopen it", connect.Quote(it.target.ExternalID))}
	}
	return nil
}

func (r *run) create(tx store.Tx, res connect.InboundImportItemResult, it *item, key store.TargetKey) (connect.InboundImportItemResult, error) {
	t := &store.Target{
		TenantID: r.caller.TenantID, SourceSystem: key.SourceSystem, ExternalID: key.ExternalID,
		Status: store.TargetActive, Data: storedData(it.target), CreatedAt: r.now, UpdatedAt: r.now,
	}
	if err := r.link(tx, &res, it, t); err != nil {
		return res, err
	}
	if err := tx.CreateTarget(t); err != nil {
		return res, err
	}
	r.targets[key] = t
	return accept(res, connect.ItemImported, t.ID, storedWarnings(it, t)), nil
}

// update replaces the target's data with the payload; an upsert of a cancelled
// target reopens it.
func (r *run) update(tx store.Tx, res connect.InboundImportItemResult, it *item, t *store.Target) (connect.InboundImportItemResult, error) {
	t.Data = storedData(it.target)
	t.Status = store.TargetActive
	t.UpdatedAt = r.now
	if err := r.link(tx, &res, it, t); err != nil {
		return res, err
	}
	if err := tx.UpdateTarget(t); err != nil {
		return res, err
	}
	return accept(res, connect.ItemUpdated, t.ID, storedWarnings(it, t)), nil
}

// link maps the item when the caller may map, ties the target to the linked
// records with its effective values, and puts the mapping result on res. The
// links always reflect the payload being stored: a payload that is not mapped
// leaves the target linked to nothing.
func (r *run) link(tx store.Tx, res *connect.InboundImportItemResult, it *item, t *store.Target) error {
	out := mapping.Unmapped(&it.target)
	if r.caller.HasScope(connect.Required.MapCustomers) && mapping.HasData(&it.target) {
		m, err := r.mapperFor(tx)
		if err != nil {
			return err
		}
		if out, err = m.Map(t.SourceSystem, &it.target); err != nil {
			return err
		}
	}
	out.Link(t)
	res.CustomerMapping = out.Result
	return nil
}

// mapperFor returns the mapper of this execution, made when the first item
// needs it, so the tenant's settings are read once per import and not at all
// by imports without customer data.
func (r *run) mapperFor(tx store.Tx) (*mapping.Mapper, error) {
	if r.mapper == nil {
		settings, err := tx.MappingSettings(r.caller.TenantID)
		if err != nil {
			return nil, err
		}
		r.mapper = mapping.NewMapper(tx, r.caller.TenantID, settings, r.now)
	}
	return r.mapper, nil
}

// storedWarnings are the content warnings of a stored target: MissingCoordinates
// when its effective coordinates (which may come from the linked customer
// location) are missing, then those prepare found.
func storedWarnings(it *item, t *store.Target) []connect.InboundImportWarning {
	if t.Effective.HasCoordinates() {
		return it.contentWarnings
	}
	missing := connect.InboundImportWarning{
		Code:    connect.WarningMissingCoordinates,
		Message: "neither address nor location nor the linked customer location has both latitude and longitude, so the target cannot be routed",
	}
	return append([]connect.InboundImportWarning{missing}, it.contentWarnings...)
}

// cancel changes only the status; the rest of a cancel payload is not applied.
func (r *run) cancel(tx store.Tx, res connect.InboundImportItemResult, it *item, t *store.Target) (connect.InboundImportItemResult, error) {
	if t == nil {
		return reject(res, connect.CodeTargetNotFound, fmt.Sprintf("target %s does not exist, so it cannot be cancelled", connect.Quote(it.target.ExternalID)), nil), nil
	}
	if t.Status == store.TargetCancelled {
		res.Warnings = append(res.Warnings, connect.InboundImportWarning{
			Code: connect.WarningAlreadyCancelled, Message: fmt.Sprintf("target %s was already cancelled", connect.Quote(it.target.ExternalID)),
		})
		return accept(res, connect.ItemCancelled, t.ID, nil), nil
	}
	t.Status = store.TargetCancelled
	t.UpdatedAt = r.now
	if err := tx.UpdateTarget(t); err != nil {
		return res, err
	}
	return accept(res, connect.ItemCancelled, t.ID, nil), nil
}

func accept(res connect.InboundImportItemResult, status connect.ItemStatus, id int64, warnings []connect.InboundImportWarning) connect.InboundImportItemResult {
	res.Status = status
	res.TargetID = &id
	res.Warnings = append(res.Warnings, warnings...)
	return res
}

func reject(res connect.InboundImportItemResult, code connect.ErrorCode, message string, id *int64) connect.InboundImportItemResult {
	res.Status = connect.ItemRejected
	// A rejected item keeps what was sent only cut (DECISIONS.md "Bounded
	// cost of every request"): its externalId may be a megabyte.
	res.ExternalID = connect.Cut(res.ExternalID)
	res.ErrorCode = &code
	res.ErrorMessage = &message
	res.TargetID = id
	return res
}

func targetID(t *store.Target) *int64 {
	if t == nil {
		return nil
	}
	return &t.ID
}

// storedData is the payload as kept on the target: without the operation, which
// is not data, and without the customer number, which belongs to the customer
// record only.
func storedData(t connect.InboundTarget) connect.InboundTarget {
	t.Operation = ""
	if t.Customer != nil {
		customer := *t.Customer
		customer.CustomerNumber = nil
		t.Customer = &customer
	}
	return t
}
