// Command httpclient talks to a running connectd over HTTP with nothing but the
// standard library: it checks the key, imports a batch with an idempotency key,
// sends the same batch again (answered from the stored outcome), and reads the
// import job back.
//
//	go run ./cmd/connectd serve --dev     # prints a demo API key
//	CONNECT_KEY=ick_... go run ./examples/httpclient [-url http://127.0.0.1:8080/api/v1]
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"
)

const batch = `{
  "sourceSystem": "erp-demo",
  "batchId": "httpclient-example",
  "targets": [
    {"externalId": "WO-2001", "title": "Replace circulation pump",
     "address": {"city": "Berlin", "latitude": 52.5200, "longitude": 13.4050},
     "planning": {"estimatedWorkMinutes": 90, "priority": "high"}},
    {"externalId": "WO-2002", "title": "Annual inspection",
     "address": {"city": "Potsdam", "latitude": 52.3906, "longitude": 13.0645}}
  ]
}`

func main() {
	url := flag.String("url", "http://127.0.0.1:8080/api/v1", "base URL of the import API")
	flag.Parse()
	key := os.Getenv("CONNECT_KEY")
	if key == "" {
		fmt.Fprintln(os.Stderr, "set CONNECT_KEY to an API key (connectd serve --dev prints one)")
		os.Exit(2)
	}
	c := client{base: *url, key: key, http: &http.Client{Timeout: 30 * time.Second}}
	if err := c.run(); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

type client struct {
	base, key string
	http      *http.Client
}

func (c client) run() error {
	if _, err := c.call("GET", "/integration/health", "", nil); err != nil {
		return err
	}
	idempotency := map[string]string{"Idempotency-Key": "httpclient-example-" + time.Now().Format("20060102")}
	// The second call is answered from the stored outcome: nothing is imported twice.
	for range 2 {
		if _, err := c.call("POST", "/inbound/targets/batch", batch, idempotency); err != nil {
			return err
		}
	}
	_, err := c.call("GET", "/import-jobs?take=5", "", nil)
	return err
}

// call sends one request, prints the status, the interesting headers and the
// body, and returns the body.
func (c client) call(method, path, body string, header map[string]string) ([]byte, error) {
	req, err := http.NewRequest(method, c.base+path, bytes.NewBufferString(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.key)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	fmt.Printf("%s %s → %s (X-Correlation-Id %s", method, path, resp.Status, resp.Header.Get("X-Correlation-Id"))
	if resp.Header.Get("Idempotent-Replayed") == "true" {
		fmt.Print(", replayed")
	}
	fmt.Println(")")
	var pretty bytes.Buffer
	if json.Indent(&pretty, out, "", "  ") == nil {
		fmt.Println(pretty.String())
	}
	if resp.StatusCode >= 400 {
		return out, fmt.Errorf("%s %s answered %s", method, path, resp.Status)
	}
	return out, nil
}
