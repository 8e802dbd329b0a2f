package webhooks

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the dispatcher's Prometheus metrics.
type metrics struct {
	deliveries    *prometheus.CounterVec
	replayed      *prometheus.CounterVec
	retained      prometheus.Gauge
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
		replayed: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "connect_webhook_replay_attempts_total",
			Help: "Attempts at events sent again on an integrator's request, by trigger (replay, resend) and outcome; also counted in connect_webhook_deliveries_total.",
		}, []string{"trigger", "outcome"}),
		retained: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "connect_webhook_events_retained",
			Help: "Webhook events kept for the events feed and replays, as of the last pruning.",
		}),
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
		for _, trigger := range []string{TriggerReplay, TriggerResend} {
			m.replayed.WithLabelValues(trigger, outcome)
		}
	}
	m.subscriptions.WithLabelValues("enabled")
	m.subscriptions.WithLabelValues("disabled")
	return m
}

func (m *metrics) register(r prometheus.Registerer) error {
	for _, c := range []prometheus.Collector{m.deliveries, m.replayed, m.retained, m.attempts, m.oldestPending, m.subscriptions} {
		if err := r.Register(c); err != nil {
			return err
		}
	}
	return nil
}

// count counts an attempt of trigger with its outcome.
func (m *metrics) count(outcome, trigger string) {
	m.deliveries.WithLabelValues(outcome).Inc()
	if trigger != TriggerLive {
		m.replayed.WithLabelValues(trigger, outcome).Inc()
	}
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
