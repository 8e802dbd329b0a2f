// Package store is the persistence contract of Integration Connect: a Store with
// read-only and read-write transactions, the records it keeps, and the helpers every
// service shares on top of it (idempotent writes, the Integration Client registry).
//
// Implementations live in subpackages (store/bolt, the embedded default for one
// process; store/postgres, for several processes on one database) and must pass
// the conformance suite in store/storetest. Every method works on records and
// keys, never on the layout of one engine; what an engine does to keep the
// promises (group commit, row locks, retries) is said in its own package.
package store

import (
	"context"
	"time"

	"github.com/integration-connect/connect"
)

// Store keeps everything Integration Connect knows. Nothing is kept only in memory:
// after Update returns nil, its writes survive a crash or a restart. Several
// processes may share one store (an engine that allows it, such as PostgreSQL):
// nothing in this contract depends on the memory of one process.
type Store interface {
	// View runs fn in a read-only transaction that sees one consistent state.
	View(ctx context.Context, fn func(Tx) error) error
	// Update runs fn in a read-write transaction and commits it when fn returns
	// nil; when fn returns an error or panics, none of its writes happen.
	//
	// Isolation: every record fn reads by key or id is protected against
	// concurrent writers until the commit, and so is the absence of a record
	// fn looked up by key and then creates (check-then-create of targets,
	// customer records, clients; read-modify-write of appointment requests,
	// subscriptions, settings). A concurrent write that would break this makes
	// the engine run fn again in a fresh transaction, so fn may run more than
	// once: it must not have effects outside the transaction, and it must reset
	// anything it collects at its start. Events appended by transactions get
	// their sequence numbers in commit order (see OutboxTx.AppendEvent).
	Update(ctx context.Context, fn func(Tx) error) error
	// Claim takes the claim called name, for work that spans transactions,
	// such as an idempotent request still being prepared. ok is false while
	// someone else, in this process or another, holds the claim. A claim is
	// held until release is called, until ttl passes, or until its holder
	// dies, whichever comes first: on bbolt claims live in the process that
	// holds the file; on PostgreSQL in the holder's database session, which
	// the server ends when the holder's process dies (at once) or its machine
	// vanishes (TCP keepalives, about 15 s), so a dead replica's claims are
	// free within seconds. A claim only spares duplicate work: what must
	// never happen twice is still decided inside an Update.
	Claim(ctx context.Context, name string, ttl time.Duration) (release func(), ok bool, err error)
	// Close waits for running transactions and releases the store.
	Close() error
}

// Tx is one transaction. Lookups of a missing record return an error matching
// connect.ErrNotFound. A Tx must not be used after its function returned.
type Tx interface {
	ClientTx
	TargetTx
	JobTx
	OutboxTx
	IdempotencyTx
	AppointmentTx
	CustomerTx
	RouteTx
}

// ClientTx stores Integration Clients.
type ClientTx interface {
	// CreateClient stores a new client; a client with the same tenant and
	// client id is refused with connect.ErrInvalidRequest.
	CreateClient(c *Client) error
	// PutClient replaces an existing client (for revocation).
	PutClient(c *Client) error
	// Client returns one client of a tenant.
	Client(tenantID, clientID string) (*Client, error)
	// ClientByKeyHash returns the client whose API key has this SHA-256 hash.
	ClientByKeyHash(hash []byte) (*Client, error)
	// Clients lists the clients of a tenant ("" for every tenant), ordered by
	// tenant and client id.
	Clients(tenantID string) ([]Client, error)
}

// TargetTx stores work targets. CreateTarget and UpdateTarget keep the target
// as it is at the call (an engine may encode it later in the transaction), so
// the caller must not change what its pointers share afterwards; it may set
// its fields to new values and write it again.
type TargetTx interface {
	// TargetByExternalID returns the target of a tenant with this identity.
	TargetByExternalID(tenantID, sourceSystem, externalID string) (*Target, error)
	// Target returns a target of a tenant by id.
	Target(tenantID string, id int64) (*Target, error)
	// CreateTarget stores a new target and sets its ID.
	CreateTarget(t *Target) error
	// UpdateTarget replaces an existing target, found by its ID.
	UpdateTarget(t *Target) error
	// TargetsByExternalID returns the targets of a tenant with these
	// identities, in one read whatever their number; keys that name no target
	// are absent from the map. A batch import reads all its targets this way
	// instead of making a round trip per item.
	TargetsByExternalID(tenantID string, keys []TargetKey) (map[TargetKey]*Target, error)
	// TenantTargets calls fn with every target of a tenant, cancelled ones
	// included, one at a time, so that its cost in memory does not grow with
	// their number; it stops at fn's first error and returns it. The order
	// is the engine's.
	TenantTargets(tenantID string, fn func(*Target) error) error
}

// TargetKey is the identity of a target within its tenant.
type TargetKey struct {
	SourceSystem string
	ExternalID   string
}

// JobTx stores import jobs. Jobs are written once, complete with their items.
type JobTx interface {
	// CreateJob stores a new job and sets its ID (IDs increase).
	CreateJob(j *Job) error
	// Job returns a job of a tenant with all its items.
	Job(tenantID string, id int64) (*Job, error)
	// Jobs returns one page of a tenant's jobs matching f, newest first, and the
	// number of all matching jobs. Its cost does not grow with the number of jobs
	// in the store, only with skip + take.
	Jobs(tenantID string, f JobFilter, skip, take int) ([]connect.ImportJobSummary, int, error)
	// DeleteJobsCreatedBefore deletes up to limit jobs of any tenant created
	// before cutoff, oldest first, with their items, and returns how many it
	// deleted. They leave every list and total; the targets they imported and
	// the route suggestions made from them stay. Processes calling it at the
	// same time never pick the same job and never wait for each other's jobs
	// (they share only the list totals, as imports do).
	DeleteJobsCreatedBefore(cutoff time.Time, limit int) (int, error)
}

// IdempotencyTx stores the outcomes of idempotent writes. Each record carries
// its own expiry, so services keeping their records for different times share
// one store without purging each other's.
type IdempotencyTx interface {
	// IdempotencyRecord returns the record stored under key, expired or not.
	IdempotencyRecord(key IdempotencyKey) (*IdempotencyRecord, error)
	// PutIdempotencyRecord stores r, replacing a record with the same key.
	PutIdempotencyRecord(r *IdempotencyRecord) error
	// PurgeIdempotencyRecords deletes up to limit records expired at now (see
	// IdempotencyRecord.Expired), those expiring first first, and returns how
	// many it deleted.
	PurgeIdempotencyRecords(now time.Time, limit int) (int, error)
}

// Client is an Integration Client as stored: its public fields and the SHA-256
// hash of its API key. The key itself is never stored.
type Client struct {
	connect.Client
	KeyHash []byte `json:"keyHash"`
}

// TargetStatus is the state of a stored target.
type TargetStatus string

// Target states.
const (
	TargetActive    TargetStatus = "Active"
	TargetCancelled TargetStatus = "Cancelled"
)

// Target is a work target as stored. Its identity is (TenantID, SourceSystem,
// ExternalID); Data holds the last imported payload as sent, with the customer
// number removed (it belongs to the customer record). CustomerID, LocationID and
// ContactID are the customer records the last import's mapping linked (nil when
// it linked none or did not run); Effective holds what planning uses, with the
// gaps of Data filled from the linked location.
type Target struct {
	ID           int64                 `json:"id"`
	TenantID     string                `json:"tenantId"`
	SourceSystem string                `json:"sourceSystem"`
	ExternalID   string                `json:"externalId"`
	Status       TargetStatus          `json:"status"`
	Data         connect.InboundTarget `json:"data"`
	CustomerID   *int64                `json:"customerId,omitempty"`
	LocationID   *int64                `json:"locationId,omitempty"`
	ContactID    *int64                `json:"contactId,omitempty"`
	Effective    TargetEffective       `json:"effective"`
	CreatedAt    time.Time             `json:"createdAt"`
	UpdatedAt    time.Time             `json:"updatedAt"`
}

// TargetEffective are the values the route optimizer plans a target with:
// Data's own values where it has them, else the linked customer location's
// defaults, else the tenant defaults. mapping.Effective computes them; it is
// the one place that rule lives.
type TargetEffective struct {
	// Latitude and Longitude are both set or both nil.
	Latitude             *float64 `json:"latitude"`
	Longitude            *float64 `json:"longitude"`
	EstimatedWorkMinutes int      `json:"estimatedWorkMinutes"`
	Priority             *string  `json:"priority"`
}

// HasCoordinates reports whether the target can be routed.
func (e TargetEffective) HasCoordinates() bool { return e.Latitude != nil && e.Longitude != nil }

// Job is an import job as stored.
type Job struct {
	TenantID string `json:"tenantId"`
	ClientID string `json:"clientId"`
	connect.ImportJobDetails
}

// JobFilter selects jobs by status and source system; empty fields match all.
// Matching is exact and case-insensitive.
type JobFilter struct {
	Status       string
	SourceSystem string
}

// IdempotencyKey is the scope of an idempotency key: keys of different clients
// never meet.
type IdempotencyKey struct {
	TenantID string `json:"tenantId"`
	ClientID string `json:"clientId"`
	Key      string `json:"key"`
}

// IdempotencyRecord is the stored outcome of an idempotent write: either a result
// (Result, Created) or a request error (ErrorCode, ErrorMessage).
type IdempotencyRecord struct {
	Key         IdempotencyKey `json:"key"`
	Fingerprint []byte         `json:"fingerprint"`
	CreatedAt   time.Time      `json:"createdAt"`
	// ExpiresAt is CreatedAt plus the retention of the service that wrote the
	// record. Zero in records stored before it existed; see Expiry.
	ExpiresAt    time.Time         `json:"expiresAt,omitzero"`
	Created      bool              `json:"created"`
	Result       []byte            `json:"result"`
	ErrorCode    connect.ErrorCode `json:"errorCode,omitempty"`
	ErrorMessage string            `json:"errorMessage,omitempty"`
}

// legacyIdempotencyRetention is assumed for records stored without an
// ExpiresAt: the default retention of the services that wrote them.
const legacyIdempotencyRetention = 24 * time.Hour

// Expiry returns when r expires: ExpiresAt, or CreatedAt + 24h for a record
// stored before records had an ExpiresAt.
func (r *IdempotencyRecord) Expiry() time.Time {
	if r.ExpiresAt.IsZero() {
		return r.CreatedAt.Add(legacyIdempotencyRetention)
	}
	return r.ExpiresAt
}

// Expired reports whether r has expired at now: from its Expiry on, its key
// is free again and the record may be purged.
func (r *IdempotencyRecord) Expired(now time.Time) bool { return !now.Before(r.Expiry()) }
