// Package importer imports work targets, one at a time or in batches, with the
// per-item semantics of DECISIONS.md "Imports": each target is decoded and
// validated on its own, items are applied in order, and the targets, the import
// job with every item result and the idempotency record are committed in one
// transaction. When the caller holds customers.map, each stored target's
// customer, location and contact are linked to customer records by package
// mapping inside that same transaction. It implements connect.Importer and
// connect.JobStore.
package importer

import (
	"context"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cockroachdb/errors"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/store"
)

// DefaultMaxBatchTargets is the default limit of targets in one batch.
const DefaultMaxBatchTargets = 1000

// The operations that, with the request body, fingerprint an idempotent import.
const (
	operationSingle = "POST /inbound/targets"
	operationBatch  = "POST /inbound/targets/batch"
)

// Config configures a Service. Zero values take the documented defaults.
type Config struct {
	// Store keeps targets, jobs and idempotency records. Required.
	Store store.Store
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// MaxBatchTargets caps a batch (PayloadTooLarge beyond). Default 1000.
	MaxBatchTargets int
	// IdempotencyRetention is how long idempotency records are kept. Default 24h.
	IdempotencyRetention time.Duration
	// MaxConcurrentBatches is how many batches are imported at a time;
	// further batches wait their turn. A batch holds several times its body
	// in memory while it is decoded and committed, and decoding already uses
	// every core, so more at once would only add memory. Default: the number
	// of cores (GOMAXPROCS).
	MaxConcurrentBatches int
}

// Service imports targets and reads import jobs.
type Service struct {
	cfg     Config
	batches chan struct{} // one element per batch being imported
	waiting atomic.Int32  // batches waiting for their turn
}

var (
	_ connect.Importer = (*Service)(nil)
	_ connect.JobStore = (*Service)(nil)
)

// New returns a Service on cfg.Store.
func New(cfg Config) *Service {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.MaxBatchTargets <= 0 {
		cfg.MaxBatchTargets = DefaultMaxBatchTargets
	}
	if cfg.IdempotencyRetention <= 0 {
		cfg.IdempotencyRetention = store.DefaultIdempotencyRetention
	}
	if cfg.MaxConcurrentBatches <= 0 {
		cfg.MaxConcurrentBatches = runtime.GOMAXPROCS(0)
	}
	return &Service{cfg: cfg, batches: make(chan struct{}, cfg.MaxConcurrentBatches)}
}

// ImportTarget imports one target given as a Go value: its JSON, imported as
// ImportTargetJSON imports it. See connect.Importer.
func (s *Service) ImportTarget(ctx context.Context, caller connect.Caller, target connect.InboundTarget, opts connect.WriteOptions) (connect.ImportOutcome, error) {
	body, err := connect.EncodeRequest(target)
	if err != nil {
		return connect.ImportOutcome{}, err
	}
	return s.ImportTargetJSON(ctx, caller, body, opts)
}

// ImportTargetJSON imports one target given as JSON (the body of endpoint 2).
// See connect.Importer.
func (s *Service) ImportTargetJSON(ctx context.Context, caller connect.Caller, body []byte, opts connect.WriteOptions) (connect.ImportOutcome, error) {
	if err := caller.RequireScope(connect.Required.ImportTarget); err != nil {
		return connect.ImportOutcome{}, err
	}
	w := s.write(caller, opts, operationSingle, body)
	claim, err := store.ClaimWrite[connect.InboundImportResult](ctx, s.cfg.Store, w)
	if err != nil {
		return connect.ImportOutcome{}, err
	}
	defer claim.Release()
	if claim.Stored() {
		return importOutcome(claim.Replay())
	}
	if err := connect.RequireObject(body, lenientSyntax); err != nil {
		return importOutcome(claim.Fail(ctx, err))
	}
	r := s.newRun(caller, connect.InboundTargetBatch{}, []item{newDecoder().decodeTarget(body)}, w.Now)
	r.single = true
	return importOutcome(claim.Commit(ctx, r.execute))
}

// ImportBatch imports a batch given as a Go value: its JSON, imported as
// ImportBatchJSON imports it. See connect.Importer.
func (s *Service) ImportBatch(ctx context.Context, caller connect.Caller, batch connect.InboundTargetBatch, opts connect.WriteOptions) (connect.ImportOutcome, error) {
	body, err := connect.EncodeRequest(batch)
	if err != nil {
		return connect.ImportOutcome{}, err
	}
	return s.ImportBatchJSON(ctx, caller, body, opts)
}

// ImportBatchJSON imports a batch given as JSON (the body of endpoint 3). See
// connect.Importer.
func (s *Service) ImportBatchJSON(ctx context.Context, caller connect.Caller, body []byte, opts connect.WriteOptions) (connect.ImportOutcome, error) {
	if err := caller.RequireScope(connect.Required.ImportBatch); err != nil {
		return connect.ImportOutcome{}, err
	}
	leave, err := s.batchTurn(ctx)
	if err != nil {
		return connect.ImportOutcome{}, err
	}
	defer leave()
	w := s.write(caller, opts, operationBatch, body)
	claim, err := store.ClaimWrite[connect.InboundImportResult](ctx, s.cfg.Store, w)
	if err != nil {
		return connect.ImportOutcome{}, err
	}
	defer claim.Release()
	if claim.Stored() {
		return importOutcome(claim.Replay())
	}
	r, err := s.batchRun(caller, body, w.Now)
	if err != nil {
		return importOutcome(claim.Fail(ctx, err))
	}
	return importOutcome(claim.Commit(ctx, r.execute))
}

// write describes an import for the idempotent write path.
func (s *Service) write(caller connect.Caller, opts connect.WriteOptions, operation string, body []byte) store.Write {
	return store.Write{
		Caller: caller, Key: opts.IdempotencyKey, Operation: operation, Body: body,
		Now: s.cfg.Now().UTC().Truncate(time.Millisecond), Retention: s.cfg.IdempotencyRetention,
	}
}

// batchTurn waits until fewer than MaxConcurrentBatches batches are being
// imported, or ctx ends; leave ends the turn.
func (s *Service) batchTurn(ctx context.Context) (leave func(), err error) {
	s.waiting.Add(1)
	defer s.waiting.Add(-1)
	select {
	case s.batches <- struct{}{}:
		return func() { <-s.batches }, nil
	case <-ctx.Done():
		return nil, errors.WithStack(ctx.Err())
	}
}

// BatchLoad reports how many batches are being imported and how many wait
// for their turn (see Config.MaxConcurrentBatches).
func (s *Service) BatchLoad() (running, waiting int) {
	return len(s.batches), int(s.waiting.Load())
}

func importOutcome(out store.Outcome[connect.InboundImportResult], err error) (connect.ImportOutcome, error) {
	return connect.ImportOutcome{Result: out.Value, Created: out.Created, Replayed: out.Replayed}, err
}

// batchRun decodes a batch: its envelope as a whole, then every target on its
// own, spread over the cores.
func (s *Service) batchRun(caller connect.Caller, body []byte, now time.Time) (*run, error) {
	b, err := decodeBatch(body, s.cfg.MaxBatchTargets)
	if err != nil {
		return nil, err
	}
	problem, err := s.checkEnvelope(b.InboundTargetBatch, len(b.Targets))
	if err != nil {
		return nil, err
	}
	envelope := b.warnings()
	items := make([]item, len(b.Targets))
	inParallel(len(items), func(d *decoder, i int) {
		items[i] = d.decodeTarget(b.Targets[i])
		if len(envelope) > 0 {
			items[i].warnings = append(slices.Clone(envelope), items[i].warnings...)
		}
		if items[i].problem == "" {
			items[i].problem = problem
		}
	})
	return s.newRun(caller, b.InboundTargetBatch, items, now), nil
}

// checkEnvelope checks a batch envelope. No targets, too many targets and an
// unknown operation fail the whole request (DECISIONS.md "Errors"). A batch
// field beyond its bounds (sourceSystem, batchId) is a validation failure of
// every item, since every item uses it: it comes back as problem.
func (s *Service) checkEnvelope(b connect.InboundTargetBatch, targets int) (problem string, err error) {
	switch {
	case targets == 0:
		return "", connect.Errorf(connect.CodeInvalidRequest, "targets is required and must hold at least one target")
	case targets > s.cfg.MaxBatchTargets:
		return "", connect.Errorf(connect.CodePayloadTooLarge, "targets must have at most %d entries; this batch has %d", s.cfg.MaxBatchTargets, targets)
	case b.Operation != "" && !b.Operation.Valid():
		return "", connect.Errorf(connect.CodeInvalidRequest, "%s", connect.UnknownOperation("operation"))
	}
	b.Targets = nil
	err = connect.Validate(b)
	if e := connect.AsError(err); e != nil {
		return "the batch's " + e.Message, nil
	}
	return "", err
}

// newRun is an import of items, validated and ready for its transaction: the
// items' checks that need no store are done here, spread over the cores, so
// the transaction only looks up and writes.
func (s *Service) newRun(caller connect.Caller, b connect.InboundTargetBatch, items []item, now time.Time) *run {
	r := &run{caller: caller, batchID: b.BatchID, operation: b.Operation, items: items, now: now}
	if b.SourceSystem != nil {
		r.sourceSystem = *b.SourceSystem
	}
	inParallel(len(r.items), func(_ *decoder, i int) { prepare(&r.items[i]) })
	return r
}

// parallelThreshold is the batch size from which decoding and validating are
// spread over the CPUs; below it the goroutines cost more than they save.
const parallelThreshold = 64

// inParallel calls fn for every index in [0, n), spread over GOMAXPROCS
// goroutines with a decoder each. The work per item is independent and done
// outside the store transaction, so a large batch uses every core while its
// transaction stays short.
func inParallel(n int, fn func(d *decoder, i int)) {
	workers := min(runtime.GOMAXPROCS(0), (n+parallelThreshold-1)/parallelThreshold)
	if workers <= 1 {
		d := newDecoder()
		for i := range n {
			fn(d, i)
		}
		return
	}
	var wg sync.WaitGroup
	chunk := (n + workers - 1) / workers
	for start := 0; start < n; start += chunk {
		wg.Go(func() {
			d := newDecoder()
			for i := start; i < min(n, start+chunk); i++ {
				fn(d, i)
			}
		})
	}
	wg.Wait()
}
