package webhooks_test

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/go-json-experiment/json"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/appointments"
	"github.com/integration-connect/connect/httpapi"
	"github.com/integration-connect/connect/importer"
	"github.com/integration-connect/connect/store"
)

// webhookDoc is the part of the OpenAPI document's x-webhooks the test reads:
// per event kind, its headers and the schema of its body.
type webhookDoc map[connect.EventKind]struct {
	Post struct {
		Parameters []struct {
			Ref string `json:"$ref"`
		} `json:"parameters"`
		RequestBody struct {
			Content map[string]struct {
				Schema struct {
					Ref string `json:"$ref"`
				} `json:"schema"`
			} `json:"content"`
		} `json:"requestBody"`
	} `json:"post"`
}

// TestDeliveriesMatchTheOpenAPIDocument: every event kind is in x-webhooks,
// and real deliveries of each kind (a route suggestion's made up, as its
// producer is not here yet) match the body schema and header schemas there.
func TestDeliveriesMatchTheOpenAPIDocument(t *testing.T) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(httpapi.OpenAPI())
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Validate(loader.Context); err != nil {
		t.Fatalf("the OpenAPI document is invalid: %v", err)
	}
	var raw struct {
		Hooks webhookDoc `json:"x-webhooks"`
	}
	if err := json.Unmarshal(httpapi.OpenAPI(), &raw); err != nil {
		t.Fatal(err)
	}
	var documented []connect.EventKind
	for kind := range raw.Hooks {
		documented = append(documented, kind)
	}
	if slices.Sort(documented); !slices.Equal(documented, sorted(connect.EventKinds)) {
		t.Fatalf("x-webhooks documents %v, want every event kind %v", documented, connect.EventKinds)
	}

	f := newFixture(t)
	rc := newReceiver(t, nil)
	sub, _ := f.subscribe("acme", rc.URL, connect.EventKinds...)
	produceEveryKind(t, f)
	f.start()
	events := f.events("acme")
	f.waitDelivered("acme", sub.ID, events[len(events)-1].Seq)

	seen := map[connect.EventKind]bool{}
	for _, d := range rc.deliveries() {
		seen[d.event.Type] = true
		hook := raw.Hooks[d.event.Type].Post
		checkAgainst(t, doc, hook.RequestBody.Content["application/json"].Schema.Ref, d.body, string(d.event.Type))
		for _, p := range hook.Parameters {
			param := doc.Components.Parameters[refName(p.Ref)].Value
			var value any = d.header.Get(param.Name)
			if n, err := strconv.ParseInt(d.header.Get(param.Name), 10, 64); err == nil && param.Schema.Value.Type.Is("integer") {
				value = float64(n)
			}
			if err := param.Schema.Value.VisitJSON(value); err != nil {
				t.Errorf("%s header %s: %v", d.event.Type, param.Name, err)
			}
		}
	}
	if len(seen) != len(connect.EventKinds) {
		t.Errorf("deliveries covered %v, want every kind", seen)
	}
}

// produceEveryKind makes tenant acme's producers append every kind of event:
// an import, an appointment request submitted, accepted without a note and
// cancelled, and a route suggestion appended as its producer will.
func produceEveryKind(t *testing.T, f *fixture) {
	t.Helper()
	if _, err := importer.New(importer.Config{Store: f.store}).ImportTarget(t.Context(), acme, connect.InboundTarget{ExternalID: "A", Title: "A"}, connect.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	svc := appointments.New(appointments.Config{Store: f.store})
	out, err := svc.SubmitAppointmentRequest(t.Context(), acme, connect.NewAppointmentRequest{
		ExternalReference: "SR-1", ServiceType: connect.ServiceTypeVisit, Location: &connect.InboundTargetLocation{},
	}, connect.WriteOptions{})
	if err == nil {
		_, err = svc.TransitionAppointmentRequest(t.Context(), "acme", out.Request.ID, connect.AppointmentActionAccept, "")
	}
	if err == nil {
		_, err = svc.CancelAppointmentRequest(t.Context(), acme, out.Request.ID, connect.CancelAppointmentRequest{Reason: "no longer needed"}, connect.WriteOptions{})
	}
	if err != nil {
		t.Fatal(err)
	}
	err = f.store.Update(t.Context(), func(tx store.Tx) error {
		return store.AppendEvent(tx, "acme", connect.EventRouteSuggestionCreated, t0, connect.RouteSuggestionCreatedEvent{
			RouteSuggestionID: 7, ImportJobID: 1, RouteDate: connect.Date{Year: 2026, Month: 11, Day: 23}, Status: "Draft", IncludedTargets: 1,
		})
	})
	if err != nil {
		t.Fatal(err)
	}
}

func checkAgainst(t *testing.T, doc *openapi3.T, ref string, body []byte, what string) {
	t.Helper()
	schema := doc.Components.Schemas[refName(ref)]
	if schema == nil {
		t.Errorf("%s: no schema %q", what, ref)
		return
	}
	var value any
	if err := json.Unmarshal(body, &value); err != nil {
		t.Fatal(err)
	}
	if err := schema.Value.VisitJSON(value); err != nil {
		t.Errorf("%s delivery does not match %s: %v\nbody: %s", what, ref, err, body)
	}
}

// refName is the name a $ref points to, its last segment.
func refName(ref string) string { return ref[strings.LastIndex(ref, "/")+1:] }

func sorted(kinds []connect.EventKind) []connect.EventKind {
	return slices.Sorted(slices.Values(kinds))
}
