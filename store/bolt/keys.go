package bolt

import (
	"encoding/binary"
	"math"
	"time"

	"github.com/cockroachdb/errors"
	"github.com/go-json-experiment/json"
	bbolt "go.etcd.io/bbolt"

	"github.com/integration-connect/connect"
)

// The buckets of the database. Records are JSON; ids are 8-byte big-endian so
// keys sort by id; composite keys are tuples (see tuple).
var (
	bucketMeta          = []byte("meta")
	bucketClients       = []byte("clients")             // tuple(tenant, client) → Client
	bucketClientKeys    = []byte("client_keys")         // key hash → tuple(tenant, client)
	bucketTargets       = []byte("targets")             // id → Target
	bucketTargetIDs     = []byte("target_ids")          // tuple(tenant, source, externalId) → id
	bucketJobs          = []byte("jobs")                // id → Job without items
	bucketJobItems      = []byte("job_items")           // id → []InboundImportItemResult
	bucketJobIndex      = []byte("job_index")           // jobFilterKey + ^id → nothing
	bucketJobCounts     = []byte("job_counts")          // jobFilterKey → count
	bucketIdempotency   = []byte("idempotency")         // tuple(tenant, client, key) → IdempotencyRecord
	bucketIdempotencyAt = []byte("idempotency_expiry")  // expiry unix nanos + tuple(tenant, client, key) → nothing
	bucketEvents        = []byte("events")              // seq → Event (see outbox.go)
	bucketEventIndex    = []byte("event_index")         // tuple(tenant, kind) + seq → nothing
	bucketEventIDs      = []byte("event_ids")           // tuple(tenant, event id) → seq
	bucketWebhooks      = []byte("webhooks")            // id → Subscription
	bucketAttempts      = []byte("webhook_attempts")    // subscription id + attempt id → Attempt
	bucketAttemptIDs    = []byte("webhook_attempt_ids") // attempt id → subscription id
	bucketAppointments  = []byte("appointments")        // tuple(tenant) + id → AppointmentRequest
	bucketApptStatus    = []byte("appointment_status")  // tuple(tenant, status) + id → nothing

	// Customer records (see customers.go for the key helpers).
	bucketCustomers         = []byte("customers")          // tuple(tenant) + id → Customer
	bucketCustomerIDs       = []byte("customer_ids")       // tuple(tenant, source, externalId) → id
	bucketCustomerNumbers   = []byte("customer_numbers")   // tuple(tenant, number) + id → nothing
	bucketCustomerCounts    = []byte("customer_counts")    // tuple(tenant) → count
	bucketLocations         = []byte("customer_locations") // tuple(tenant) + customer id + id → CustomerLocation
	bucketLocationIDs       = []byte("location_ids")       // tuple(tenant, customer id, externalId) → id
	bucketLocationAddresses = []byte("location_addresses") // tuple(tenant, customer id, address key) + id → nothing
	bucketContacts          = []byte("customer_contacts")  // tuple(tenant) + customer id + id → CustomerContact
	bucketContactIDs        = []byte("contact_ids")        // tuple(tenant, customer id, externalId) → id
	bucketContactEmails     = []byte("contact_emails")     // tuple(tenant, customer id, email key) + id → nothing
	bucketMappingSettings   = []byte("mapping_settings")   // tuple(tenant) → MappingSettings
)

// Route suggestions, optimization profiles and employees (see routes.go).
var (
	bucketRouteSuggestions      = []byte("route_suggestions")        // id → RouteSuggestion
	bucketRouteSuggestionsByJob = []byte("route_suggestions_by_job") // tuple(tenant) + job id + id → nothing
	bucketProfiles              = []byte("optimization_profiles")    // tuple(tenant) + id → OptimizationProfile
	bucketEmployees             = []byte("employees")                // tuple(tenant, id) → Employee
	bucketRoutePlans            = []byte("route_plans")              // id → RoutePlan
)

var allBuckets = [][]byte{
	bucketMeta, bucketClients, bucketClientKeys, bucketTargets, bucketTargetIDs,
	bucketJobs, bucketJobItems, bucketJobIndex, bucketJobCounts, bucketIdempotency, bucketIdempotencyAt,
	bucketEvents, bucketEventIndex, bucketEventIDs, bucketWebhooks, bucketAttempts, bucketAttemptIDs,
	bucketAppointments, bucketApptStatus,
	bucketCustomers, bucketCustomerIDs, bucketCustomerNumbers, bucketCustomerCounts,
	bucketLocations, bucketLocationIDs, bucketLocationAddresses,
	bucketContacts, bucketContactIDs, bucketContactEmails, bucketMappingSettings,
	bucketRouteSuggestions, bucketRouteSuggestionsByJob, bucketProfiles, bucketEmployees, bucketRoutePlans,
}

// appendOnly are the buckets whose new keys sort after every key already
// there: ids and sequence numbers handed out in increasing order, and expiry
// times. bbolt splits a full page in half, which for keys that only ever grow
// leaves every page half empty for good (the targets bucket filled its pages
// to 44%). Filled whole, their pages take half the disk; an update that makes
// a record longer splits its page as any other bucket's would.
var appendOnly = map[string]bool{
	string(bucketTargets): true, string(bucketJobs): true, string(bucketJobItems): true,
	string(bucketIdempotencyAt): true, string(bucketEvents): true, string(bucketRouteSuggestions): true,
	string(bucketRoutePlans): true, string(bucketAttemptIDs): true,
}

// createBuckets prepares a new file, or brings an existing one up to
// schemaVersion (see migrate.go), in one transaction.
func createBuckets(btx *bbolt.Tx) error {
	for _, name := range allBuckets {
		if _, err := btx.CreateBucketIfNotExists(name); err != nil {
			return errors.Wrapf(err, "creating bucket %s", name)
		}
	}
	return migrate(btx)
}

// tuple encodes strings so that no two tuples share an encoding and a tuple's
// encoding is a prefix of every longer tuple starting with the same parts: each
// part is its length (uvarint) followed by its bytes. Tuples therefore sort by
// the length of a part before its bytes ("b" before "aa"): a list promised in
// the order of a string part must be sorted after the scan. (Changing the
// encoding would break existing files.)
func tuple(parts ...string) []byte {
	n := 0
	for _, p := range parts {
		n += binary.MaxVarintLen64 + len(p)
	}
	b := make([]byte, 0, n+8)
	for _, p := range parts {
		b = binary.AppendUvarint(b, uint64(len(p)))
		b = append(b, p...)
	}
	return b
}

func u64(v uint64) []byte { return binary.BigEndian.AppendUint64(nil, v) }

func idKey(id int64) []byte { return u64(uint64(id)) }

// descID sorts newer (larger) ids first.
func descID(id int64) []byte { return u64(math.MaxUint64 - uint64(id)) }

func idFromDesc(b []byte) int64 { return int64(math.MaxUint64 - binary.BigEndian.Uint64(b)) }

// get decodes the record under key into v, or returns connect.ErrNotFound.
// A record written by putDeflated is inflated first.
func get(b *bbolt.Bucket, key []byte, v any) error {
	data := b.Get(key)
	if data == nil {
		return connect.ErrNotFound
	}
	data, err := inflate(data)
	if err != nil {
		return err
	}
	return errors.Wrap(json.Unmarshal(data, v), "decoding a record")
}

// getOwned decodes the record kept under a global id and returns it only when
// it belongs to tenantID: another tenant's record is not found, exactly as if
// it did not exist. owner reads the record's tenant.
func getOwned[T any](b *bbolt.Bucket, id int64, tenantID string, owner func(*T) string) (*T, error) {
	var r T
	if err := get(b, idKey(id), &r); err != nil {
		return nil, err
	}
	if owner(&r) != tenantID {
		return nil, connect.ErrNotFound
	}
	return &r, nil
}

// oldest decodes the records of b from its first key on — the oldest, in
// buckets keyed by increasing ids — up to limit, stopping at the first whose
// time (at) is not before cutoff.
func oldest[T any](b *bbolt.Bucket, cutoff time.Time, limit int, at func(*T) time.Time) ([]T, error) {
	var records []T
	c := b.Cursor()
	for k, v := c.First(); k != nil && len(records) < limit; k, v = c.Next() {
		var r T
		if err := json.Unmarshal(v, &r); err != nil {
			return nil, errors.Wrap(err, "decoding a record")
		}
		if !at(&r).Before(cutoff) {
			break
		}
		records = append(records, r)
	}
	return records, nil
}

// put encodes v under key.
func put(b *bbolt.Bucket, key []byte, v any, opts ...json.Options) error {
	data, err := json.Marshal(v, opts...)
	if err != nil {
		return errors.Wrap(err, "encoding a record")
	}
	return errors.Wrap(b.Put(key, data), "writing a record")
}

// putDeflated is put for the large, rarely read records (see pack.go).
func putDeflated(b *bbolt.Bucket, key []byte, v any, opts ...json.Options) error {
	data, err := json.Marshal(v, opts...)
	if err != nil {
		return errors.Wrap(err, "encoding a record")
	}
	return errors.Wrap(b.Put(key, deflate(data)), "writing a record")
}

// compact leaves out zero fields (nulls, empty strings, zeros), for the
// records written most, targets and job items: a target with most of its
// optional fields unset is encoded in about half the bytes and time. It is
// only for records that are decoded into a zero value; a record decoded onto
// defaults (such as mapping settings) would lose its false and zero fields.
var compact = json.OmitZeroStructFields(true)

// nextID returns the next id of a bucket's sequence.
func nextID(b *bbolt.Bucket) (int64, error) {
	seq, err := b.NextSequence()
	return int64(seq), errors.Wrap(err, "allocating an id")
}
