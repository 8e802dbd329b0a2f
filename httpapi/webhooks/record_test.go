package webhooks_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/integration-connect/connect"
	"github.com/integration-connect/connect/httpapi/webhooks"
	"github.com/integration-connect/connect/store"
)

// rawReceiver answers every request with the status line status, byte for
// byte, as a receiver outside Go's net/http may (a Latin-1 reason phrase, say),
// and returns its URL and the number of requests it got so far.
func rawReceiver(t *testing.T, status string) (string, func() int) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var requests atomic.Int64
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Go(func() { answerRaw(conn, status, &requests) })
		}
	})
	t.Cleanup(func() { _ = ln.Close(); wg.Wait() })
	return "http://" + ln.Addr().String(), func() int { return int(requests.Load()) }
}

// answerRaw reads one request from conn, counts it and answers it with
// status, then closes the connection.
func answerRaw(conn net.Conn, status string, requests *atomic.Int64) {
	defer conn.Close()
	req, err := http.ReadRequest(bufio.NewReader(conn))
	if err != nil {
		return
	}
	_, _ = io.Copy(io.Discard, req.Body)
	requests.Add(1)
	_, _ = fmt.Fprintf(conn, "HTTP/1.1 %s\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", status)
}

// refusedURL returns a loopback URL nobody listens on.
func refusedURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	_ = ln.Close()
	return url
}

// TestFailureTextIsStoredAsUTF8: what a failed attempt keeps as lastError is
// valid UTF-8 cut on a character boundary, whatever the receiver answered or
// the URL holds, so the failure is recorded and the retries back off (RetryMin
// 1h doubling, on a frozen clock) instead of coming at every poll.
func TestFailureTextIsStoredAsUTF8(t *testing.T) {
	const cut = 300 // the longest lastError before its "…"
	tests := []struct {
		name string
		// setup returns the subscription's URL, the lastError wanted, and
		// the number of requests the receiver got (nil: none listens).
		setup func(t *testing.T) (url, want string, requests func() int)
	}{
		{"Latin-1 status line", func(t *testing.T) (string, string, func() int) {
			url, requests := rawReceiver(t, "500 Fehl\xfcr")
			return url, "answered 500 Fehl\uFFFDr", requests
		}},
		{"multi-byte character across the cut in the status line", func(t *testing.T) (string, string, func() int) {
			prefix := "answered 500 "
			pad := strings.Repeat("x", cut-1-len(prefix)) // "ä" takes bytes 299 and 300
			url, requests := rawReceiver(t, "500 "+pad+"äöü")
			return url, prefix + pad + "…", requests
		}},
		{"multi-byte character across the cut in the URL", func(t *testing.T) (string, string, func() int) {
			base := refusedURL(t) + "/hooks?name="
			prefix := `Post "` + base // how net/http quotes the URL in its error
			pad := strings.Repeat("x", cut-1-len(prefix))
			return base + pad + "äöü", prefix + pad + "…", nil
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			url, want, requests := tc.setup(t)
			sub, _ := f.subscribe("acme", url, connect.EventImportJobCompleted)
			f.appendEvent("acme", t0)
			clock := newClock(t0)
			f.start(func(c *webhooks.Config) { c.Now, c.RetryMin, c.RetryMax = clock.Now, time.Hour, 8*time.Hour })

			waitFor(t, "the first failed attempt to be recorded", func() bool { return f.subscription("acme", sub.ID).Attempts == 1 })
			s := f.subscription("acme", sub.ID)
			if s.LastError != want || !s.NextAttemptAt.Equal(t0.Add(time.Hour)) || !s.FailingSince.Equal(t0) {
				t.Errorf("after the first failure: lastError %q, nextAttemptAt %v, failingSince %v; want %q, %v, %v",
					s.LastError, s.NextAttemptAt, s.FailingSince, want, t0.Add(time.Hour), t0)
			}
			clock.Set(t0.Add(time.Hour))
			waitFor(t, "the second failed attempt to be recorded", func() bool { return f.subscription("acme", sub.ID).Attempts == 2 })
			if s := f.subscription("acme", sub.ID); s.LastError != want || !s.NextAttemptAt.Equal(t0.Add(3*time.Hour)) {
				t.Errorf("after the second failure: lastError %q, nextAttemptAt %v; want %q, %v", s.LastError, s.NextAttemptAt, want, t0.Add(3*time.Hour))
			}
			if requests != nil && requests() != 2 {
				t.Errorf("the receiver got %d requests on a clock stopped before the third attempt, want 2", requests())
			}
		})
	}
}

// fullStore is a store whose writes fail while it is full, as on a full disk,
// and which counts its read transactions.
type fullStore struct {
	store.Store
	full  atomic.Bool
	views atomic.Int64
}

func (s *fullStore) Update(ctx context.Context, fn func(store.Tx) error) error {
	if s.full.Load() {
		return failingStore{s.Store}.Update(ctx, fn)
	}
	return s.Store.Update(ctx, fn)
}

func (s *fullStore) View(ctx context.Context, fn func(store.Tx) error) error {
	s.views.Add(1)
	return s.Store.View(ctx, fn)
}

// waitPolls waits until the dispatcher read from s n more times.
func (s *fullStore) waitPolls(t *testing.T, n int64) {
	t.Helper()
	from := s.views.Load()
	waitFor(t, fmt.Sprintf("%d polls", n), func() bool { return s.views.Load() >= from+n })
}

// logCounter is a slog handler counting the records with one message prefix.
type logCounter struct {
	prefix string
	n      atomic.Int64
}

func (l *logCounter) Enabled(context.Context, slog.Level) bool { return true }
func (l *logCounter) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *logCounter) WithGroup(string) slog.Handler            { return l }

func (l *logCounter) Handle(_ context.Context, r slog.Record) error {
	if strings.HasPrefix(r.Message, l.prefix) {
		l.n.Add(1)
	}
	return nil
}

// TestUnrecordedFailureStillBacksOff: when the store refuses to record a
// failed attempt (the disk filled up during it), the dispatcher logs it and
// waits the retry delay anyway: with RetryMin 1h on a frozen clock the
// receiver gets no second attempt, however many polls pass, until an hour
// later, although the stored schedule says the event is due. While the store
// refuses every write, no attempt is made at all: without a delivery lease a
// dispatcher does not deliver.
func TestUnrecordedFailureStillBacksOff(t *testing.T) {
	f := newFixture(t)
	full := &fullStore{Store: f.store}
	rc := newReceiver(t, func(*http.Request, int) int {
		full.full.Store(true)
		return http.StatusInternalServerError
	})
	f.subscribe("acme", rc.URL, connect.EventImportJobCompleted)
	f.appendEvent("acme", t0)
	clock := newClock(t0)
	logs := &logCounter{prefix: "webhooks: recording a delivery"}
	f.start(func(c *webhooks.Config) {
		c.Store, c.Now, c.Logger = full, clock.Now, slog.New(logs)
		c.RetryMin, c.RetryMax = time.Hour, 8*time.Hour
	})
	waitFor(t, "an unrecorded attempt", func() bool { return logs.n.Load() >= 1 })
	full.waitPolls(t, 20)
	if got := len(rc.deliveries()); got != 1 {
		t.Fatalf("%d attempts while the store is full, want 1", got)
	}

	full.full.Store(false)
	clock.Set(t0.Add(time.Hour - time.Nanosecond))
	full.waitPolls(t, 50)
	if got := len(rc.deliveries()); got != 1 || logs.n.Load() != 1 {
		t.Fatalf("just before the retry delay: %d attempts, %d unrecorded; want 1 and 1", got, logs.n.Load())
	}
	clock.Set(t0.Add(time.Hour))
	waitFor(t, "the second attempt", func() bool { return len(rc.deliveries()) >= 2 })
}
