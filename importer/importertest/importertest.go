// Package importertest holds test data shared by the import benchmarks of the
// library and of the HTTP host, so both measure the same requests.
package importertest

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/integration-connect/connect"
)

// Caller is the client the import benchmarks import as: the import scopes,
// without customers.map, so they measure the importer (the mapping benchmark
// adds the scope).
var Caller = connect.Caller{TenantID: "acme", ClientID: "erp-client", SourceSystem: "erp",
	Scopes: []connect.Scope{connect.ScopeTargetsWrite, connect.ScopeTargetsBatchWrite, connect.ScopeImportJobsRead}}

// RealisticTarget is a target as an ERP sends it: address with coordinates,
// customer, contact, planning, business value and a few custom fields.
func RealisticTarget(prefix string, i int) string {
	return fmt.Sprintf(`{
  "externalId": "%s-%06d", "externalType": "WorkOrder", "templateKey": "maintenance",
  "title": "Annual boiler maintenance %d", "description": "Check burner, clean heat exchanger, measure flue gas.",
  "customer": {"externalId": "CUST-%d", "customerNumber": "K-%d", "name": "Customer %d GmbH", "email": "service%d@example.com", "phone": "+49 30 1234567"},
  "contact": {"externalId": "CON-%d", "firstName": "Anna", "lastName": "Schmidt", "email": "anna%d@example.com", "mobile": "+49 170 1234567"},
  "address": {"street": "Hauptstraße %d", "postalCode": "10115", "city": "Berlin", "country": "DE", "latitude": %.5f, "longitude": %.5f},
  "planning": {"routeDate": "2026-11-23", "timeWindowStartUtc": "2026-11-23T07:00:00Z", "timeWindowEndUtc": "2026-11-23T15:00:00Z", "estimatedWorkMinutes": 60, "priority": "normal"},
  "businessValue": {"expectedRevenue": 240.5, "closeProbability": 0.8, "customerTier": "gold"},
  "customFields": {"contractNo": "V-%d", "boilerModel": "Vitodens 200"}
}`, prefix, i, i, i%200, i%200, i%200, i%200, i%200, i%200, i, 52.4+float64(i%100)/500, 13.3+float64(i%97)/500, i)
}

// RealisticBatch is a batch body of n realistic targets whose externalIds
// start with prefix.
func RealisticBatch(prefix string, n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"sourceSystem":"erp","batchId":"` + prefix + `","targets":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(RealisticTarget(prefix, i))
	}
	b.WriteString("]}")
	return b.Bytes()
}

// PlanningTarget is the lean target of the disk-use workload: externalId,
// title, a description of 0 to 300 characters, an address with coordinates
// and planning; about 400 bytes of JSON on average. The description's length
// and text vary with i, deterministically.
func PlanningTarget(prefix string, i int) string {
	const words = "check burner clean heat exchanger measure flue gas replace filter inspect valves test pressure document findings "
	n := (i * 7919) % 301
	description := strings.Repeat(words, n/len(words)+1)[:n]
	return fmt.Sprintf(`{"externalId":"%s-%06d","title":"Maintenance visit %d",`+
		`"description":%q,`+
		`"address":{"street":"Hauptstraße %d","postalCode":"%05d","city":"Berlin","latitude":%.5f,"longitude":%.5f},`+
		`"planning":{"routeDate":"2026-11-23","estimatedWorkMinutes":%d}}`,
		prefix, i, i, description, i%300+1, 10115+i%900, 52.4+float64(i%100)/500, 13.3+float64(i%97)/500, 30+i%8*15)
}

// PlanningBatch is a batch body of n PlanningTargets whose externalIds start
// with prefix: the disk-use workload imports 100 of them with n = 1,000.
func PlanningBatch(prefix string, n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"sourceSystem":"erp","batchId":"` + prefix + `","targets":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(PlanningTarget(prefix, i))
	}
	b.WriteString("]}")
	return b.Bytes()
}
