package storetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/cockroachdb/errors"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/store"
)

// testAppointments checks the appointment request records: lookups by tenant and
// id, replacement, and the listing by status with a cursor.
func testAppointments(t *testing.T, open Opener) {
	t.Run("CreateGetPut", func(t *testing.T) { testAppointmentRecords(t, open) })
	t.Run("ListByStatus", func(t *testing.T) { testAppointmentList(t, open) })
	t.Run("FailedUpdateLeavesNothing", func(t *testing.T) { testAppointmentRollback(t, open) })
	t.Run("ReopenKeepsData", func(t *testing.T) { testAppointmentReopen(t, open) })
}

func newAppointment(tenant, id string, status connect.AppointmentStatus) *store.AppointmentRequest {
	note := "created by the conformance suite"
	r := &store.AppointmentRequest{TenantID: tenant, ClientID: "client-1"}
	r.ID = id
	r.Status = status
	r.ExternalReference = "ref-" + id
	r.ServiceType = connect.ServiceTypeMaintenance
	r.Priority = connect.AppointmentPriorityNormal
	r.Location = &connect.InboundTargetLocation{}
	r.Metadata = jsontext.Value(`{"b":[1,2.50],"a":{"n":12345678901234567890}}`)
	r.CreatedAt, r.UpdatedAt = t0, t0
	r.History = []connect.AppointmentStatusChange{{Status: status, At: t0, Note: &note}}
	return r
}

func createAppointments(t *testing.T, s store.Store, recs ...*store.AppointmentRequest) {
	t.Helper()
	update(t, s, func(tx store.Tx) error {
		for _, r := range recs {
			if err := tx.CreateAppointmentRequest(r); err != nil {
				return err
			}
		}
		return nil
	})
}

func testAppointmentRecords(t *testing.T, open Opener) {
	s, _ := openFresh(t, open)
	mine := newAppointment("t1", "apr_b", connect.AppointmentValidated)
	createAppointments(t, s, mine, newAppointment("t2", "apr_c", connect.AppointmentValidated))

	err := s.Update(ctx, func(tx store.Tx) error {
		return tx.CreateAppointmentRequest(newAppointment("t1", "apr_b", connect.AppointmentSubmitted))
	})
	if err == nil {
		t.Error("creating a request whose id is stored succeeded")
	}
	err = s.Update(ctx, func(tx store.Tx) error {
		return tx.PutAppointmentRequest(newAppointment("t1", "apr_x", connect.AppointmentSubmitted))
	})
	wantNotFound(t, "replacing an unknown request", err)
	err = s.Update(ctx, func(tx store.Tx) error {
		return tx.PutAppointmentRequest(newAppointment("t2", "apr_b", connect.AppointmentSubmitted))
	})
	wantNotFound(t, "replacing another tenant's request", err)

	cancelled, reason, by := t0.Add(time.Hour), "no longer needed", connect.CancelledByCustomer
	mine.Status, mine.CancelledAt, mine.CancelReason, mine.CancelledBy = connect.AppointmentCancelled, &cancelled, &reason, &by
	mine.History = append(mine.History, connect.AppointmentStatusChange{Status: connect.AppointmentCancelled, At: cancelled})
	update(t, s, func(tx store.Tx) error { return tx.PutAppointmentRequest(mine) })

	view(t, s, func(tx store.Tx) error {
		got, err := tx.AppointmentRequest("t1", "apr_b")
		if err != nil {
			t.Fatalf("AppointmentRequest(t1, apr_b): %v", err)
		}
		if got.ClientID != "client-1" || got.Status != connect.AppointmentCancelled || !got.CancelledAt.Equal(cancelled) ||
			*got.CancelReason != reason || *got.CancelledBy != by || len(got.History) != 2 || got.History[1].Note != nil ||
			*got.History[0].Note != "created by the conformance suite" || string(got.Metadata) != string(mine.Metadata) {
			t.Errorf("after PutAppointmentRequest: %+v", got)
		}
		_, err = tx.AppointmentRequest("t2", "apr_b")
		wantNotFound(t, "another tenant's request", err)
		_, err = tx.AppointmentRequest("t1", "apr_c")
		wantNotFound(t, "another tenant's request", err)
		_, err = tx.AppointmentRequest("t1", "")
		wantNotFound(t, "an empty id", err)
		return nil
	})
}

func testAppointmentList(t *testing.T, open Opener) {
	s, _ := openFresh(t, open)
	statuses := []connect.AppointmentStatus{
		connect.AppointmentValidated, connect.AppointmentPendingReview, connect.AppointmentValidated,
		connect.AppointmentValidated, connect.AppointmentAccepted, connect.AppointmentValidated,
	}
	var recs []*store.AppointmentRequest
	for i, st := range statuses {
		// Created out of id order: the listing sorts by id, not by insertion.
		recs = append(recs, newAppointment("t1", fmt.Sprintf("apr_%02d", len(statuses)-i), st))
	}
	recs = append(recs, newAppointment("t2", "apr_00", connect.AppointmentValidated))
	createAppointments(t, s, recs...)
	// apr_05 moves from PendingReview to Accepted, apr_03 from Validated to Failed.
	recs[1].Status, recs[3].Status = connect.AppointmentAccepted, connect.AppointmentFailed
	update(t, s, func(tx store.Tx) error {
		return errors.CombineErrors(tx.PutAppointmentRequest(recs[1]), tx.PutAppointmentRequest(recs[3]))
	})

	tests := []struct {
		name   string
		status connect.AppointmentStatus
		after  string
		limit  int
		want   []string
	}{
		{"validated", connect.AppointmentValidated, "", 10, []string{"apr_01", "apr_04", "apr_06"}},
		{"first page", connect.AppointmentValidated, "", 2, []string{"apr_01", "apr_04"}},
		{"second page", connect.AppointmentValidated, "apr_04", 2, []string{"apr_06"}},
		{"past the end", connect.AppointmentValidated, "apr_06", 2, nil},
		{"cursor between ids", connect.AppointmentValidated, "apr_02", 10, []string{"apr_04", "apr_06"}},
		{"moved in", connect.AppointmentAccepted, "", 10, []string{"apr_02", "apr_05"}},
		{"moved out", connect.AppointmentPendingReview, "", 10, nil},
		{"failed", connect.AppointmentFailed, "", 10, []string{"apr_03"}},
		{"every status", "", "", 10, []string{"apr_01", "apr_02", "apr_03", "apr_04", "apr_05", "apr_06"}},
		{"every status, paged", "", "apr_02", 3, []string{"apr_03", "apr_04", "apr_05"}},
		{"limit 0", connect.AppointmentValidated, "", 0, nil},
		{"no prefix match on status", "Valid", "", 10, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			view(t, s, func(tx store.Tx) error {
				list, err := tx.AppointmentRequests("t1", tc.status, tc.after, tc.limit)
				if err != nil {
					return err
				}
				var got []string
				for _, r := range list {
					got = append(got, r.ID)
					if r.TenantID != "t1" || (tc.status != "" && r.Status != tc.status) {
						t.Errorf("listed %s of tenant %s with status %s", r.ID, r.TenantID, r.Status)
					}
				}
				if fmt.Sprint(got) != fmt.Sprint(tc.want) {
					t.Errorf("ids = %v, want %v", got, tc.want)
				}
				return nil
			})
		})
	}
}

func testAppointmentRollback(t *testing.T, open Opener) {
	s, _ := openFresh(t, open)
	existing := newAppointment("t1", "apr_a", connect.AppointmentValidated)
	createAppointments(t, s, existing)
	err := s.Update(ctx, func(tx store.Tx) error {
		changed := *existing
		changed.Status = connect.AppointmentAccepted
		if err := tx.PutAppointmentRequest(&changed); err != nil {
			return err
		}
		if err := tx.CreateAppointmentRequest(newAppointment("t1", "apr_b", connect.AppointmentValidated)); err != nil {
			return err
		}
		return errInjected
	})
	if !errors.Is(err, errInjected) {
		t.Fatalf("Update returned %v, want the injected failure", err)
	}
	view(t, s, func(tx store.Tx) error {
		_, err := tx.AppointmentRequest("t1", "apr_b")
		wantNotFound(t, "request of a failed transaction", err)
		got, err := tx.AppointmentRequest("t1", "apr_a")
		if err != nil || got.Status != connect.AppointmentValidated {
			t.Errorf("request changed by a failed transaction: %+v, %v", got, err)
		}
		wantListed := map[connect.AppointmentStatus]int{connect.AppointmentValidated: 1, connect.AppointmentAccepted: 0}
		for status, want := range wantListed {
			list, err := tx.AppointmentRequests("t1", status, "", 10)
			if err != nil || len(list) != want {
				t.Errorf("listing %s after a failed transaction: %d requests, %v; want %d", status, len(list), err, want)
			}
		}
		return nil
	})
}

func testAppointmentReopen(t *testing.T, open Opener) {
	reopen := open(t)
	s := reopen()
	createAppointments(t, s, newAppointment("t1", "apr_a", connect.AppointmentPendingReview))
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	s = reopen()
	defer s.Close()
	view(t, s, func(tx store.Tx) error {
		list, err := tx.AppointmentRequests("t1", connect.AppointmentPendingReview, "", 10)
		if err != nil || len(list) != 1 || list[0].ID != "apr_a" || list[0].ExternalReference != "ref-apr_a" {
			t.Errorf("after reopen: %+v, %v", list, err)
		}
		return nil
	})
}
