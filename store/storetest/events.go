package storetest

import (
	"context"
	"testing"

	"github.com/cockroachdb/errors"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/store"
)

// Events returns the outbox events of a tenant of the given kinds (every kind
// when none is given), oldest first. Tests of event producers use it.
func Events(tb testing.TB, s store.Store, tenantID string, kinds ...connect.EventKind) []store.Event {
	tb.Helper()
	if len(kinds) == 0 {
		kinds = connect.EventKinds
	}
	var list []store.Event
	err := s.View(context.Background(), func(tx store.Tx) error {
		list = nil
		for after := int64(0); ; {
			e, err := store.NextEvent(tx, tenantID, kinds, after)
			if errors.Is(err, connect.ErrNotFound) {
				return nil
			}
			if err != nil {
				return err
			}
			list, after = append(list, *e), e.Seq
		}
	})
	if err != nil {
		tb.Fatalf("reading events: %v", err)
	}
	return list
}
