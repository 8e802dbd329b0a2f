package webhooks

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the dispatcher's Prometheus metrics.
type metrics struct {
	deliveries    *prometheus.CounterVec
	attempts      prometheus.Histogram
	oldestPending prometheus.Gauge
	subscriptions *prometheus.GaugeVec
}

// newMetrics makes the dispatcher's metrics with every series of a known
// label at zero, so dashboards and alerts see them before the first delivery.
func newMetrics() *metrics {
	m := &metrics{
		deliveries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "connect_webhook_deliveries_total",
			Help: "Webhook delivery attempts, by outcome: delivered (2xx), http_error (any other answer), timeout, network_error, refused (the URL's host is or resolves to an address deliveries may not go to).",
		}, []string{"outcome"}),
		attempts: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "connect_webhook_delivery_attempts",
			Help:    "Attempts a webhook event took until its receiver accepted it (1: at the first).",
			Buckets: []float64{1, 2, 3, 5, 10, 20, 50},
		}),
		oldestPending: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "connect_webhook_oldest_pending_event_age_seconds",
			Help: "Age of the oldest webhook event still waiting for an enabled subscription; 0 when none waits.",
		}),
		subscriptions: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "connect_webhook_subscriptions",
			Help: "Webhook subscriptions, by state: enabled, disabled.",
		}, []string{"state"}),
	}
	for _, outcome := range outcomes {
		m.deliveries.WithLabelValues(outcome)
	}
	m.subscriptions.WithLabelValues("enabled")
	m.subscriptions.WithLabelValues("disabled")
	return m
}

func (m *metrics) register(r prometheus.Registerer) error {
	for _, c := range []prometheus.Collector{m.deliveries, m.attempts, m.oldestPending, m.subscriptions} {
		if err := r.Register(c); err != nil {
			return err
		}
	}
	return nil
}

// observeHeads sets the gauges from every subscription's next event.
func (m *metrics) observeHeads(heads []head, now time.Time) {
	var oldest time.Duration
	enabled := 0
	for _, h := range heads {
		if !h.sub.Enabled {
			continue
		}
		enabled++
		if h.event != nil {
			oldest = max(oldest, now.Sub(h.event.CreatedAt))
		}
	}
	m.oldestPending.Set(oldest.Seconds())
	m.subscriptions.WithLabelValues("enabled").Set(float64(enabled))
	m.subscriptions.WithLabelValues("disabled").Set(float64(len(heads) - enabled))
}
