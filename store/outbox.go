package store

import (
	"time"

	"github.com/cockroachdb/errors"
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/integration-connect/connect"
)

// OutboxTx stores webhook events and the subscriptions they are delivered to:
// the transactional outbox. A producer appends its event in the transaction of
// the change the event describes, so a rolled-back change emits nothing and a
// committed one is never lost; a dispatcher reads the events later, outside
// that transaction, and delivers them.
type OutboxTx interface {
	// AppendEvent stores e and sets e.Seq to the next number of the one
	// sequence all tenants share. An event of a transaction committed later
	// has a larger number, so a reader that saw an event never misses one
	// committed after it: a subscription's cursor never skips an event. (The
	// number may be set only when the transaction commits; e.Seq is then zero
	// until Update returns.)
	AppendEvent(e *Event) error
	// Events returns up to limit of the tenant's events of kinds (every
	// kind when kinds is empty) numbered above after and below before
	// (before 0: no bound), in sequence order. It seeks an index by (tenant,
	// kind, sequence): its cost does not grow with the number of events up
	// to after, nor with other tenants' or kinds' events.
	Events(tenantID string, kinds []connect.EventKind, after, before int64, limit int) ([]Event, error)
	// EventByID returns the tenant's event with that id, or
	// connect.ErrNotFound.
	EventByID(tenantID, id string) (*Event, error)
	// EventSeqAt returns the sequence number of the first event created at or
	// after t, or one above the last event's when there is none. Events are
	// numbered in commit order and stamped when their transaction runs, so
	// their times follow their numbers to within a commit's duration; the
	// answer is exact for times further apart than that.
	EventSeqAt(t time.Time) (int64, error)
	// PruneEvents deletes up to limit events created before cutoff, and
	// returns how many it deleted. Events are kept for their retention
	// period whether or not a subscription received them: a subscription
	// that did not receive an event before it expired goes on with the next.
	PruneEvents(cutoff time.Time, limit int) (int, error)
	// CountEvents returns how many events are kept (in a read-only
	// transaction: what was committed before it).
	CountEvents() (int, error)

	// AppendAttempt stores a delivery attempt and sets its ID (IDs increase).
	AppendAttempt(a *Attempt) error
	// Attempts returns up to limit attempts of a tenant's subscription with
	// an ID below before (0: no bound), newest first.
	Attempts(tenantID string, subscriptionID, before int64, limit int) ([]Attempt, error)
	// PruneAttempts deletes up to limit attempts made before cutoff and
	// returns how many it deleted. DeleteSubscription deletes a
	// subscription's attempts with it.
	PruneAttempts(cutoff time.Time, limit int) (int, error)

	// CreateSubscription stores a new subscription, sets its ID (IDs
	// increase) and sets its Cursor to the sequence number of the last event
	// appended so far, so it receives only events appended after it.
	CreateSubscription(s *Subscription) error
	// Subscription returns a subscription of a tenant by id.
	Subscription(tenantID string, id int64) (*Subscription, error)
	// PutSubscription replaces an existing subscription, found by tenant and
	// id.
	PutSubscription(s *Subscription) error
	// DeleteSubscription deletes a subscription of a tenant.
	DeleteSubscription(tenantID string, id int64) error
	// Subscriptions lists the subscriptions of a tenant ("" for every
	// tenant), ordered by id.
	Subscriptions(tenantID string) ([]Subscription, error)
}

// Event is a webhook event as stored. ID is the webhook-id of every delivery
// of the event; Data is its payload as JSON.
type Event struct {
	Seq       int64             `json:"seq"`
	ID        string            `json:"id"`
	TenantID  string            `json:"tenantId"`
	Kind      connect.EventKind `json:"kind"`
	CreatedAt time.Time         `json:"createdAt"`
	Data      jsontext.Value    `json:"data"`
}

// Subscription is a webhook subscription as stored: what is listed, and the
// signing secret, which the dispatcher needs in full to sign deliveries.
type Subscription struct {
	connect.WebhookSubscription
	Secret string `json:"secret"`
	// LeaseToken and LeaseUntil are the delivery lease: while LeaseUntil is
	// ahead, only the dispatcher that took the lease (and so knows
	// LeaseToken) delivers this subscription's events. Every new lease gets a
	// new token, so an outcome recorded by a dispatcher whose lease was taken
	// over meanwhile is recognised and dropped.
	LeaseToken int64     `json:"leaseToken,omitempty"`
	LeaseUntil time.Time `json:"leaseUntil,omitzero"`
	// PreviousSecret signs deliveries beside Secret until
	// PreviousSecretUntil: the overlap after a rotation.
	PreviousSecret      string    `json:"previousSecret,omitempty"`
	PreviousSecretUntil time.Time `json:"previousSecretUntil,omitzero"`
	// Replays are the ranges of events to deliver again before the live
	// stream goes on, oldest request first.
	Replays []Replay `json:"replays,omitempty"`
}

// Replay is a range of events to deliver again: those of the subscription's
// kinds numbered above After and up to Through. Trigger is "replay" or
// "resend".
type Replay struct {
	After   int64  `json:"after"`
	Through int64  `json:"through"`
	Trigger string `json:"trigger"`
}

// Attempt is a delivery attempt as stored.
type Attempt struct {
	connect.DeliveryAttempt
	TenantID       string `json:"tenantId"`
	SubscriptionID int64  `json:"subscriptionId"`
}

// Payload is the body of every delivery of e and of its entry in the events
// feed: the one encoding of an event, so both are byte-identical.
func (e *Event) Payload() (jsontext.Value, error) {
	body, err := json.Marshal(connect.WebhookEvent{
		ID: e.ID, Type: e.Kind, Timestamp: e.CreatedAt, SchemaVersion: connect.EventSchemaVersion, Data: e.Data,
	}, json.Deterministic(true))
	return body, errors.Wrapf(err, "encoding event %s", e.ID)
}

// NextEvent returns the tenant's first event of one of kinds numbered above
// after, or connect.ErrNotFound (also for no kinds): the next event of a
// subscription's stream.
func NextEvent(tx OutboxTx, tenantID string, kinds []connect.EventKind, after int64) (*Event, error) {
	if len(kinds) == 0 {
		return nil, connect.ErrNotFound
	}
	events, err := tx.Events(tenantID, kinds, after, 0, 1)
	if err != nil {
		return nil, err
	}
	if len(events) == 0 {
		return nil, connect.ErrNotFound
	}
	return &events[0], nil
}

// EventIDPrefix starts every event id, so an id says what it names.
const EventIDPrefix = "evt_"

// eventIDs makes the ids of all events of this process, in creation order.
var eventIDs IDs

// NewEventID returns a new event id made at at: for an outbox event, and for
// an event sent without the outbox (a subscription's test ping).
func NewEventID(at time.Time) (string, error) { return eventIDs.Next(EventIDPrefix, at) }

// AppendEvent appends an event of kind with data as its payload for tenantID
// in tx, which must be the transaction of the change the event describes. It
// is the one line every producer adds:
//
//	err := store.AppendEvent(tx, tenantID, connect.EventImportJobCompleted, now, job.ImportJobSummary)
func AppendEvent(tx OutboxTx, tenantID string, kind connect.EventKind, at time.Time, data any) error {
	if !kind.Valid() {
		return errors.AssertionFailedf("appending an event of unknown kind %q", kind)
	}
	raw, err := json.Marshal(data)
	if err != nil {
		return errors.Wrapf(err, "encoding the data of a %s event", kind)
	}
	id, err := NewEventID(at)
	if err != nil {
		return err
	}
	return tx.AppendEvent(&Event{ID: id, TenantID: tenantID, Kind: kind, CreatedAt: at.UTC(), Data: raw})
}
