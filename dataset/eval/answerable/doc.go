// Package answerable tells which questions of a benchmark a KG can
// answer: it runs each question's gold SPARQL on the KG, compares what
// comes back with the gold answers (exact, superset, partial, none), and
// writes the questions that pass in the input's own format, so that an
// evaluation on a slice of Freebase asks only what the slice holds.
package answerable
