package store_test

import (
	"testing"

	"github.com/integration-connect/connect/store"
)

func TestAddressKey(t *testing.T) {
	base := store.AddressKey("Hauptstraße 1", "10115", "Berlin", "DE")
	tests := []struct {
		name                              string
		street, postalCode, city, country string
		same                              bool
	}{
		{"identical", "Hauptstraße 1", "10115", "Berlin", "DE", true},
		{"case folded", "HAUPTSTRASSE 1", "10115", "berlin", "de", false}, // ß is not ss: only case and spaces fold
		{"case and white space folded", " hauptstraße \t 1 ", " 10115", "BERLIN ", "de", true},
		{"other house number", "Hauptstraße 11", "10115", "Berlin", "DE", false},
		{"other country", "Hauptstraße 1", "10115", "Berlin", "AT", false},
		{"parts do not run into each other", "Hauptstraße 1 10115", "", "Berlin", "DE", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := store.AddressKey(tc.street, tc.postalCode, tc.city, tc.country)
			if (got == base) != tc.same {
				t.Errorf("AddressKey = %q, base %q; same = %v, want %v", got, base, got == base, tc.same)
			}
		})
	}
	for _, tc := range []struct{ name, street, postalCode, city string }{
		{"no street", "", "10115", "Berlin"},
		{"street only", "Hauptstraße 1", "", ""},
		{"blank street", "  ", "10115", "Berlin"},
	} {
		if got := store.AddressKey(tc.street, tc.postalCode, tc.city, "DE"); got != "" {
			t.Errorf("%s: AddressKey = %q, want \"\" (not a place)", tc.name, got)
		}
	}
	if got := store.AddressKey("Hauptstraße 1", "", "Berlin", ""); got == "" {
		t.Error("street and city without postal code or country should make a key")
	}
}

func TestEmailKey(t *testing.T) {
	if got := store.EmailKey("  Anna.Schmidt@Example.COM "); got != "anna.schmidt@example.com" {
		t.Errorf("EmailKey = %q", got)
	}
}
