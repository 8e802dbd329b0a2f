package httpapi

import (
	"net/http"
	"runtime"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/integration-connect/connect"
)

// metrics are the handler's Prometheus metrics, on a registry of its own.
type metrics struct {
	registry    *prometheus.Registry
	requests    *prometheus.CounterVec
	duration    *prometheus.HistogramVec
	items       *prometheus.CounterVec
	replays     *prometheus.CounterVec
	rateLimited *prometheus.CounterVec
}

// newMetrics makes the metrics of a handler of the given host version.
func newMetrics(version string) *metrics {
	m := &metrics{
		registry: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "connect_http_requests_total", Help: "HTTP requests answered, by route template, method and status.",
		}, []string{"route", "method", "status"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "connect_http_request_duration_seconds", Help: "Time to answer HTTP requests, by route template, method and status.",
			Buckets: prometheus.DefBuckets,
		}, []string{"route", "method", "status"}),
		items: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "connect_imported_items_total", Help: "Imported targets, by item status (Imported, Updated, Cancelled, Rejected).",
		}, []string{"status"}),
		replays: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "connect_idempotent_replays_total", Help: "Write requests answered from a stored idempotent outcome, by route template.",
		}, []string{"route"}),
		rateLimited: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "connect_rate_limited_requests_total", Help: "Requests refused with 429 RateLimited, by route template.",
		}, []string{"route"}),
	}
	buildInfo := prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "connect_build_info", Help: "Always 1; its labels name the version of the host and the Go version it was built with.",
		ConstLabels: prometheus.Labels{"version": version, "goversion": runtime.Version()},
	})
	buildInfo.Set(1)
	m.registry.MustRegister(m.requests, m.duration, m.items, m.replays, m.rateLimited, buildInfo,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{Registry: m.registry})
}

func (m *metrics) observeRequest(route, method string, status int, elapsed time.Duration) {
	code := strconv.Itoa(status)
	m.requests.WithLabelValues(route, method, code).Inc()
	m.duration.WithLabelValues(route, method, code).Observe(elapsed.Seconds())
}

func (m *metrics) observeItems(items []connect.InboundImportItemResult) {
	for _, it := range items {
		m.items.WithLabelValues(string(it.Status)).Inc()
	}
}
