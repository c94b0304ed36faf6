package transport

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	dto "github.com/prometheus/client_model/go"
	"github.com/rs/zerolog"

	"github.com/tabhive/tabhive/page"
)

// Metrics counts what tabhive does, for /metrics (Prometheus text format)
// and for a periodic summary in the debug log. Its methods are safe for
// concurrent use.
type Metrics struct {
	reg          *prometheus.Registry
	calls        *prometheus.CounterVec   // by tool and outcome
	latency      *prometheus.HistogramVec // by tool
	evalDuration prometheus.Histogram
	evalTimeouts prometheus.Counter
	terminations prometheus.Counter
	dialogs      prometheus.Counter
	stale        prometheus.Counter
}

// NewMetrics returns a fresh set of metrics with its own registry.
func NewMetrics() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "tabhive_tool_calls_total", Help: "Tool calls by tool and outcome (ok, error, timeout, bad-args, no-page, no-browser).",
		}, []string{"tool", "outcome"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "tabhive_tool_call_duration_seconds", Help: "Tool call latency, from arguments to reply.",
			Buckets: []float64{.005, .01, .025, .05, .1, .15, .25, .5, 1, 2.5, 5, 10, 30},
		}, []string{"tool"}),
		evalDuration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "tabhive_evaluate_duration_seconds", Help: "evaluate_script run time, timed-out runs included.",
			Buckets: []float64{.001, .005, .01, .05, .1, .5, 1, 5, 30},
		}),
		evalTimeouts: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "tabhive_evaluate_timeouts_total", Help: "evaluate_script runs stopped at their deadline.",
		}),
		terminations: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "tabhive_evaluate_terminations_total", Help: "Runtime.terminateExecution sent to stop a script still running.",
		}),
		dialogs: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "tabhive_dialogs_total", Help: "JavaScript dialogs opened on pages.",
		}),
		stale: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "tabhive_stale_calls_dropped_total", Help: "Calls dropped unrun because their deadline passed while they waited for their page.",
		}),
	}
	m.reg.MustRegister(m.calls, m.latency, m.evalDuration, m.evalTimeouts, m.terminations, m.dialogs, m.stale,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// PageHooks returns the hooks page actors call to feed these metrics.
func (m *Metrics) PageHooks() page.Hooks {
	return page.Hooks{
		EvaluateDone: func(d time.Duration, timedOut bool) {
			m.evalDuration.Observe(d.Seconds())
			if timedOut {
				m.evalTimeouts.Inc()
			}
		},
		ScriptTerminated: m.terminations.Inc,
		DialogOpened:     m.dialogs.Inc,
		StaleDropped:     m.stale.Inc,
	}
}

// observe records one tool call.
func (m *Metrics) observe(tool, outcome string, d time.Duration) {
	m.calls.WithLabelValues(tool, outcome).Inc()
	m.latency.WithLabelValues(tool).Observe(d.Seconds())
}

// gauges registers the live page, session and call counts (what an
// autoscaler scales on), and whether the browser is connected.
func (m *Metrics) gauges(pages, sessions, calls func() int, connected func() bool) {
	m.reg.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "tabhive_browser_connected", Help: "1 while the browser connection is up, else 0."},
			func() float64 {
				if connected() {
					return 1
				}
				return 0
			}),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "tabhive_pages", Help: "Open pages."},
			func() float64 { return float64(pages()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "tabhive_sessions", Help: "Connected MCP sessions."},
			func() float64 { return float64(sessions()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "tabhive_calls_in_flight", Help: "Tool calls being answered."},
			func() float64 { return float64(calls()) }),
	)
}

// Counter returns the current value of a counter family summed over its
// labels, for tests and the log summary; 0 if there is no such family.
func (m *Metrics) Counter(name string) float64 {
	families, err := m.reg.Gather()
	if err != nil {
		return 0
	}
	var sum float64
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, metric := range f.GetMetric() {
			sum += value(metric)
		}
	}
	return sum
}

func value(m *dto.Metric) float64 {
	switch {
	case m.Counter != nil:
		return m.Counter.GetValue()
	case m.Gauge != nil:
		return m.Gauge.GetValue()
	case m.Histogram != nil:
		return float64(m.Histogram.GetSampleCount())
	}
	return 0
}

// logEvery writes a summary of the metrics to log at debug level every
// period until ctx ends.
func (m *Metrics) logEvery(ctx context.Context, log zerolog.Logger, period time.Duration) {
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			log.Debug().
				Float64("tool_calls", m.Counter("tabhive_tool_calls_total")).
				Float64("evaluate_timeouts", m.Counter("tabhive_evaluate_timeouts_total")).
				Float64("terminations", m.Counter("tabhive_evaluate_terminations_total")).
				Float64("dialogs", m.Counter("tabhive_dialogs_total")).
				Float64("stale_dropped", m.Counter("tabhive_stale_calls_dropped_total")).
				Float64("pages", m.Counter("tabhive_pages")).
				Float64("sessions", m.Counter("tabhive_sessions")).
				Msg("metrics")
		}
	}
}
