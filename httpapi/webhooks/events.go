package webhooks

import (
	"context"

	"github.com/cockroachdb/errors"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/store"
)

// Events is the events feed of tenants on a store: each event of the
// retention period, in commit order, byte-identical to the body of its
// deliveries (store.Event.Payload), whether or not a subscription wanted it.
type Events struct {
	Store store.Store
}

var _ connect.EventFeed = (*Events)(nil)

// ListEvents returns a page of the caller's tenant's events. See
// connect.EventFeed.
//
// Every bound becomes a range of sequence numbers, so a page costs a few
// index seeks and its own events however many events the store keeps: after
// is its event's number, since and until the numbers of the first events
// created at or after them (store.OutboxTx.EventSeqAt).
func (f *Events) ListEvents(ctx context.Context, caller connect.Caller, q connect.EventQuery) (connect.EventPage, error) {
	if err := caller.RequireScope(connect.Required.ReadEvents); err != nil {
		return connect.EventPage{}, err
	}
	kinds, err := checkTypes(q.Types)
	if err != nil {
		return connect.EventPage{}, err
	}
	if !q.Since.IsZero() && !q.Until.IsZero() && !q.Since.Before(q.Until) {
		return connect.EventPage{}, connect.Errorf(connect.CodeInvalidRequest, "since must be before until")
	}
	limit := connect.PageLimit(q.Limit)
	page := connect.EventPage{Events: []jsontext.Value{}}
	err = f.Store.View(ctx, func(tx store.Tx) error {
		after, before, err := seqRange(tx, caller.TenantID, q)
		if err != nil {
			return err
		}
		events, err := tx.Events(caller.TenantID, kinds, after, before, limit)
		for i := range events {
			body, err := events[i].Payload()
			if err != nil {
				return err
			}
			page.Events = append(page.Events, body)
		}
		if len(events) == limit {
			page.Next = events[len(events)-1].ID
		}
		return err
	})
	return page, err
}

// seqRange turns a query's bounds into the sequence numbers after and before
// (0: none) of the events to list.
func seqRange(tx store.Tx, tenantID string, q connect.EventQuery) (after, before int64, err error) {
	if q.After != "" {
		e, err := event(tx, tenantID, q.After, "after")
		if err != nil {
			return 0, 0, err
		}
		after = e.Seq
	}
	if !q.Since.IsZero() {
		seq, err := tx.EventSeqAt(q.Since)
		if err != nil {
			return 0, 0, err
		}
		after = max(after, seq-1)
	}
	if !q.Until.IsZero() {
		if before, err = tx.EventSeqAt(q.Until); err != nil {
			return 0, 0, err
		}
	}
	return after, before, nil
}

// checkTypes checks the feed's type filter; empty means every kind.
func checkTypes(types []connect.EventKind) ([]connect.EventKind, error) {
	if len(types) == 0 {
		return nil, nil
	}
	return checkKinds(types, "type")
}

// GetEvent returns one event of the caller's tenant. See connect.EventFeed.
func (f *Events) GetEvent(ctx context.Context, caller connect.Caller, id string) (jsontext.Value, error) {
	if err := caller.RequireScope(connect.Required.ReadEvents); err != nil {
		return nil, err
	}
	var body jsontext.Value
	err := f.Store.View(ctx, func(tx store.Tx) error {
		e, err := tx.EventByID(caller.TenantID, id)
		if errors.Is(err, connect.ErrNotFound) {
			return connect.Errorf(connect.CodeNotFound, "tenant %q has no event %s: unknown, or older than the retention period", caller.TenantID, connect.Quote(id))
		}
		if err != nil {
			return err
		}
		body, err = e.Payload()
		return err
	})
	return body, err
}
