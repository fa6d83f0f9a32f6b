package main

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// engineMetrics exports the network engine's measurements.
type engineMetrics struct {
	transactions *prometheus.CounterVec
	batchSize    prometheus.Histogram
	commitTime   prometheus.Histogram
}

func newEngineMetrics(reg prometheus.Registerer) *engineMetrics {
	m := &engineMetrics{
		transactions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "sandnet_ledger_transactions_total", Help: "Transactions the sequencer committed or rejected.",
		}, []string{"outcome"}),
		batchSize: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "sandnet_ledger_batch_transactions", Help: "Transactions per group commit.",
			Buckets: prometheus.ExponentialBuckets(1, 2, 8),
		}),
		commitTime: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "sandnet_ledger_commit_seconds", Help: "Duration of the database transaction of a group commit.",
			Buckets: prometheus.ExponentialBuckets(0.0002, 3, 10),
		}),
	}
	reg.MustRegister(m.transactions, m.batchSize, m.commitTime)
	return m
}

// BatchCommitted implements ledger.Observer.
func (m *engineMetrics) BatchCommitted(committed, rejected int, elapsed time.Duration, _ error) {
	m.transactions.WithLabelValues("committed").Add(float64(committed))
	m.transactions.WithLabelValues("rejected").Add(float64(rejected))
	m.batchSize.Observe(float64(committed + rejected))
	m.commitTime.Observe(elapsed.Seconds())
}
