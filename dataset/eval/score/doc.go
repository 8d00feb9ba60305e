// Package score scores one predicted answer against a question's gold
// answers: strict matching of names and ids (with aliases), Hits@1 and
// F1, Think-on-Graph's own rule where its benchmarks are quoted, and the
// intervals (t and bootstrap) that reports put around the means.
package score
