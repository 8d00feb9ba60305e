package server

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/parog/parog-go/kgqa/kg"
)

// defaultSPARQLConcurrency is server.sparql_concurrency when unset.
const defaultSPARQLConcurrency = 2

// sparqlGauges registers what shows /sparql work in flight: the queries
// being served, and the evaluations an in-process store is still running
// (which would outlive their request if the store could not stop them).
func (s *Server) sparqlGauges() {
	s.sparqlInFlight = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "parog_sparql_requests_in_flight", Help: "/sparql queries being served.",
	})
	s.metrics.Registry().MustRegister(s.sparqlInFlight)
	if ev, ok := s.graph.(kg.Evaluating); ok {
		s.metrics.Registry().MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "parog_kg_evaluations_running", Help: "Queries the embedded store is evaluating, including any whose caller has gone.",
		}, func() float64 { return float64(ev.Evaluating()) }))
	}
}

// sparqlSlot takes one of the server.sparql_concurrency places for a
// /sparql query, or answers 503 at once: queries are bounded in memory one
// by one, and this bounds how many run together.
func (s *Server) sparqlSlot() (func(), error) {
	select {
	case s.sparqlSlots <- struct{}{}:
	default:
		he := errorf(http.StatusServiceUnavailable, "too many /sparql queries running; retry in 1 s")
		he.retryAfter = 1
		return nil, he
	}
	s.sparqlInFlight.Inc()
	return func() {
		s.sparqlInFlight.Dec()
		<-s.sparqlSlots
	}, nil
}
