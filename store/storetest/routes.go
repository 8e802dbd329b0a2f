package storetest

import (
	"slices"
	"strings"
	"testing"

	"github.com/cockroachdb/errors"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/store"
)

// The route part of the contract (store.RouteTx): suggestions by id and by
// job, profiles and employees, each kept per tenant.

func newSuggestion(tenant string, jobID int64) *store.RouteSuggestion {
	r := &store.RouteSuggestion{TenantID: tenant}
	r.ImportJobID, r.Status, r.CreatedAtUtc = jobID, connect.RouteDraft, t0
	r.RouteDate = connect.DateOf(t0)
	return r
}

// testRouteSuggestions: ids increase; a suggestion is read back by id and
// listed under its job, oldest first; Put replaces it; another tenant's id,
// or an id that was never created, is not found.
func testRouteSuggestions(t *testing.T, open Opener) {
	s, _ := openFresh(t, open)
	a, b, c, other := newSuggestion("t1", 7), newSuggestion("t1", 8), newSuggestion("t1", 7), newSuggestion("t2", 7)
	update(t, s, func(tx store.Tx) error {
		return errors.Join(tx.CreateRouteSuggestion(a), tx.CreateRouteSuggestion(b), tx.CreateRouteSuggestion(c), tx.CreateRouteSuggestion(other))
	})
	if a.ID <= 0 || b.ID <= a.ID || c.ID <= b.ID || other.ID <= c.ID {
		t.Fatalf("ids not assigned in increasing order: %d %d %d %d", a.ID, b.ID, c.ID, other.ID)
	}
	a.Status = connect.RoutePublished
	update(t, s, func(tx store.Tx) error { return tx.PutRouteSuggestion(a) })
	err := s.Update(ctx, func(tx store.Tx) error {
		missing := newSuggestion("t1", 7)
		missing.ID = other.ID + 100
		return tx.PutRouteSuggestion(missing)
	})
	wantNotFound(t, "Put of a suggestion never created", err)
	err = s.Update(ctx, func(tx store.Tx) error {
		stolen := *other
		stolen.TenantID = "t1"
		return tx.PutRouteSuggestion(&stolen)
	})
	wantNotFound(t, "Put of another tenant's suggestion", err)
	view(t, s, func(tx store.Tx) error {
		got, err := tx.RouteSuggestion("t1", a.ID)
		if err != nil || got.Status != connect.RoutePublished || got.ImportJobID != 7 || got.TenantID != "t1" {
			t.Errorf("RouteSuggestion after Put = %+v, %v", got, err)
		}
		_, err = tx.RouteSuggestion("t2", a.ID)
		wantNotFound(t, "another tenant's suggestion", err)
		list, err := tx.RouteSuggestionsForJob("t1", 7)
		if err != nil || len(list) != 2 || list[0].ID != a.ID || list[1].ID != c.ID {
			t.Errorf("RouteSuggestionsForJob(t1, 7) = %v, %v; want [%d %d]", suggestionIDs(list), err, a.ID, c.ID)
		}
		if list, err := tx.RouteSuggestionsForJob("t1", 9); err != nil || len(list) != 0 {
			t.Errorf("RouteSuggestionsForJob of a job without any = %v, %v", suggestionIDs(list), err)
		}
		return nil
	})
}

func suggestionIDs(list []store.RouteSuggestion) []int64 {
	ids := make([]int64, len(list))
	for i, r := range list {
		ids[i] = r.ID
	}
	return ids
}

// testProfiles: ids increase; Put replaces an existing profile of its tenant
// only; lists hold one tenant's profiles by id; Delete removes once.
func testProfiles(t *testing.T, open Opener) {
	s, _ := openFresh(t, open)
	vans := &store.OptimizationProfile{TenantID: "t1", Name: "Vans", AverageSpeedKmh: 40, CreatedAt: t0}
	bikes := &store.OptimizationProfile{TenantID: "t1", Name: "Bikes", AverageSpeedKmh: 15, CreatedAt: t0}
	theirs := &store.OptimizationProfile{TenantID: "t2", Name: "Trucks", CreatedAt: t0}
	update(t, s, func(tx store.Tx) error {
		return errors.Join(tx.CreateProfile(vans), tx.CreateProfile(bikes), tx.CreateProfile(theirs))
	})
	if vans.ID <= 0 || bikes.ID <= vans.ID || theirs.ID <= bikes.ID {
		t.Fatalf("ids not assigned in increasing order: %d %d %d", vans.ID, bikes.ID, theirs.ID)
	}
	vans.AverageSpeedKmh = 55
	update(t, s, func(tx store.Tx) error { return tx.PutProfile(vans) })
	err := s.Update(ctx, func(tx store.Tx) error {
		stolen := *theirs
		stolen.TenantID = "t1"
		return tx.PutProfile(&stolen)
	})
	wantNotFound(t, "Put of another tenant's profile", err)
	view(t, s, func(tx store.Tx) error {
		got, err := tx.Profile("t1", vans.ID)
		if err != nil || got.AverageSpeedKmh != 55 || got.Name != "Vans" {
			t.Errorf("Profile after Put = %+v, %v", got, err)
		}
		_, err = tx.Profile("t1", theirs.ID)
		wantNotFound(t, "another tenant's profile", err)
		list, err := tx.Profiles("t1")
		if err != nil || len(list) != 2 || list[0].ID != vans.ID || list[1].ID != bikes.ID {
			t.Errorf("Profiles(t1) = %+v, %v", list, err)
		}
		return nil
	})
	update(t, s, func(tx store.Tx) error { return tx.DeleteProfile("t1", bikes.ID) })
	wantNotFound(t, "deleting a profile twice", s.Update(ctx, func(tx store.Tx) error { return tx.DeleteProfile("t1", bikes.ID) }))
	wantNotFound(t, "deleting another tenant's profile", s.Update(ctx, func(tx store.Tx) error { return tx.DeleteProfile("t1", theirs.ID) }))
	view(t, s, func(tx store.Tx) error {
		if list, err := tx.Profiles("t1"); err != nil || len(list) != 1 || list[0].ID != vans.ID {
			t.Errorf("Profiles(t1) after a delete = %+v, %v", list, err)
		}
		if list, err := tx.Profiles("t2"); err != nil || len(list) != 1 || list[0].ID != theirs.ID {
			t.Errorf("Profiles(t2) = %+v, %v", list, err)
		}
		return nil
	})
}

// testEmployees: Put creates or replaces by (tenant, id); lists hold one
// tenant's employees in id order (as strings: e10 before e2); Delete removes
// once.
func testEmployees(t *testing.T, open Opener) {
	s, _ := openFresh(t, open)
	update(t, s, func(tx store.Tx) error {
		var errs []error
		for _, id := range []string{"e2", "e10", "e1"} {
			errs = append(errs, tx.PutEmployee(&store.Employee{TenantID: "t1", ID: id, Name: "first " + id, CreatedAt: t0}))
		}
		errs = append(errs, tx.PutEmployee(&store.Employee{TenantID: "t2", ID: "e1", Name: "theirs", CreatedAt: t0}))
		return errors.Join(errs...)
	})
	update(t, s, func(tx store.Tx) error {
		return tx.PutEmployee(&store.Employee{TenantID: "t1", ID: "e2", Name: "second e2", CreatedAt: t0})
	})
	view(t, s, func(tx store.Tx) error {
		list, err := tx.Employees("t1")
		var names []string
		for _, e := range list {
			names = append(names, e.ID+":"+e.Name)
		}
		if want := "e1:first e1 e10:first e10 e2:second e2"; err != nil || strings.Join(names, " ") != want {
			t.Errorf("Employees(t1) = %q, %v; want %q", strings.Join(names, " "), err, want)
		}
		got, err := tx.Employee("t2", "e1")
		if err != nil || got.Name != "theirs" {
			t.Errorf("Employee(t2, e1) = %+v, %v", got, err)
		}
		_, err = tx.Employee("t2", "e2")
		wantNotFound(t, "an employee of another tenant", err)
		return nil
	})
	update(t, s, func(tx store.Tx) error { return tx.DeleteEmployee("t1", "e1") })
	wantNotFound(t, "deleting an employee twice", s.Update(ctx, func(tx store.Tx) error { return tx.DeleteEmployee("t1", "e1") }))
	view(t, s, func(tx store.Tx) error {
		_, err := tx.Employee("t1", "e1")
		wantNotFound(t, "a deleted employee", err)
		if got, err := tx.Employee("t2", "e1"); err != nil || got.Name != "theirs" {
			t.Errorf("the other tenant's e1 after the delete = %+v, %v", got, err)
		}
		return nil
	})
}

// testRoutePlans: a plan is stored with its drafts in one transaction, read
// back whole by its tenant only, and ids increase.
func testRoutePlans(t *testing.T, open Opener) {
	s, _ := openFresh(t, open)
	var first, second store.RoutePlan
	update(t, s, func(tx store.Tx) error {
		draft := newSuggestion("t1", 0)
		if err := tx.CreateRouteSuggestion(draft); err != nil {
			return err
		}
		first = store.RoutePlan{TenantID: "t1", RouteDate: connect.DateOf(t0), Status: connect.RouteDraft, CreatedAtUtc: t0,
			EmployeeIDs: []string{"e1"}, ImportJobIDs: []int64{7}, RouteSuggestionIDs: []int64{draft.ID},
			LeftOut: []connect.RouteExcludedItem{{ExternalID: "X", Reason: connect.ExcludedDoesNotFit, Message: "full"}}}
		second = store.RoutePlan{TenantID: "t2", RouteDate: connect.DateOf(t0), Status: connect.RouteDraft, CreatedAtUtc: t0}
		return errors.Join(tx.CreateRoutePlan(&first), tx.CreateRoutePlan(&second))
	})
	if first.ID <= 0 || second.ID <= first.ID {
		t.Fatalf("ids not assigned in increasing order: %d %d", first.ID, second.ID)
	}
	view(t, s, func(tx store.Tx) error {
		got, err := tx.RoutePlan("t1", first.ID)
		if err != nil || got.EmployeeIDs[0] != "e1" || got.ImportJobIDs[0] != 7 || len(got.RouteSuggestionIDs) != 1 ||
			got.LeftOut[0].Message != "full" || !got.CreatedAtUtc.Equal(t0) {
			t.Errorf("RoutePlan = %+v, %v", got, err)
		}
		if _, err := tx.RouteSuggestion("t1", got.RouteSuggestionIDs[0]); err != nil {
			t.Errorf("the plan's draft: %v", err)
		}
		_, err = tx.RoutePlan("t2", first.ID)
		wantNotFound(t, "another tenant's plan", err)
		_, err = tx.RoutePlan("t1", second.ID+100)
		wantNotFound(t, "a plan never created", err)
		return nil
	})
}

// testTenantTargets: every target of the tenant, cancelled ones included,
// and no other tenant's; fn's error stops the visit and is returned.
func testTenantTargets(t *testing.T, open Opener) {
	s, _ := openFresh(t, open)
	update(t, s, func(tx store.Tx) error {
		cancelled := newTarget("t1", "crm", "C")
		cancelled.Status = store.TargetCancelled
		return errors.Join(tx.CreateTarget(newTarget("t1", "erp", "A")), tx.CreateTarget(newTarget("t1", "erp", "B")),
			tx.CreateTarget(cancelled), tx.CreateTarget(newTarget("t2", "erp", "A")), tx.CreateTarget(newTarget("t10", "erp", "Z")))
	})
	view(t, s, func(tx store.Tx) error {
		var seen []string
		err := tx.TenantTargets("t1", func(tg *store.Target) error {
			seen = append(seen, tg.TenantID+"/"+tg.SourceSystem+"/"+tg.ExternalID+"/"+string(tg.Status))
			return nil
		})
		slices.Sort(seen)
		if want := "t1/crm/C/Cancelled t1/erp/A/Active t1/erp/B/Active"; err != nil || strings.Join(seen, " ") != want {
			t.Errorf("TenantTargets(t1) = %q, %v; want %q", strings.Join(seen, " "), err, want)
		}
		stop := errors.New("enough")
		calls := 0
		err = tx.TenantTargets("t1", func(*store.Target) error { calls++; return stop })
		if !errors.Is(err, stop) || calls != 1 {
			t.Errorf("an error from fn: %v after %d calls, want it after 1", err, calls)
		}
		return nil
	})
}
