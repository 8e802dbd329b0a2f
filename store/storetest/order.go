package storetest

import (
	"fmt"
	"testing"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/store"
)

// testListOrder checks that lists documented as ordered by a string (a
// tenant, a client or employee id) are in byte order of those strings, not in
// the order of some key encoding: "aa" comes before "b".
func testListOrder(t *testing.T, open Opener) {
	s, _ := openFresh(t, open)
	clients := [][2]string{{"b", "x"}, {"aa", "c-write"}, {"aa", "b"}, {"aa", "c-health"}, {"aa", "aa"}}
	employees := [][2]string{{"t1", "c-write"}, {"t1", "b"}, {"t2", "a"}, {"t1", "aa"}, {"t1", "c-health"}}
	appointments := []string{"b", "ab1", "aa"}
	update(t, s, func(tx store.Tx) error {
		for _, c := range clients {
			nc := &store.Client{Client: connect.Client{TenantID: c[0], ClientID: c[1], CreatedAt: t0}, KeyHash: []byte(c[0] + "/" + c[1])}
			if err := tx.CreateClient(nc); err != nil {
				return err
			}
		}
		for _, e := range employees {
			if err := tx.PutEmployee(&store.Employee{TenantID: e[0], ID: e[1], CreatedAt: t0, UpdatedAt: t0}); err != nil {
				return err
			}
		}
		for _, id := range appointments {
			if err := tx.CreateAppointmentRequest(newAppointment("t1", id, connect.AppointmentValidated)); err != nil {
				return err
			}
		}
		return nil
	})
	view(t, s, func(tx store.Tx) error {
		tests := []struct {
			name string
			list func() ([]string, error)
			want []string
		}{
			{"Clients of every tenant", func() ([]string, error) { return clientIDs(tx.Clients("")) },
				[]string{"aa/aa", "aa/b", "aa/c-health", "aa/c-write", "b/x"}},
			{"Clients of one tenant", func() ([]string, error) { return clientIDs(tx.Clients("aa")) },
				[]string{"aa/aa", "aa/b", "aa/c-health", "aa/c-write"}},
			{"Employees", func() ([]string, error) { return employeeIDs(tx.Employees("t1")) },
				[]string{"aa", "b", "c-health", "c-write"}},
			{"AppointmentRequests of every status", func() ([]string, error) {
				return appointmentIDs(tx.AppointmentRequests("t1", "", "", 10))
			}, []string{"aa", "ab1", "b"}},
			{"AppointmentRequests by status after a cursor", func() ([]string, error) {
				return appointmentIDs(tx.AppointmentRequests("t1", connect.AppointmentValidated, "aa", 10))
			}, []string{"ab1", "b"}},
		}
		for _, tc := range tests {
			got, err := tc.list()
			if err != nil || fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("%s = %v, %v; want %v", tc.name, got, err, tc.want)
			}
		}
		return nil
	})
}

func clientIDs(list []store.Client, err error) ([]string, error) {
	var ids []string
	for _, c := range list {
		ids = append(ids, c.TenantID+"/"+c.ClientID)
	}
	return ids, err
}

func employeeIDs(list []store.Employee, err error) ([]string, error) {
	var ids []string
	for _, e := range list {
		ids = append(ids, e.ID)
	}
	return ids, err
}

func appointmentIDs(list []store.AppointmentRequest, err error) ([]string, error) {
	var ids []string
	for _, r := range list {
		ids = append(ids, r.ID)
	}
	return ids, err
}
