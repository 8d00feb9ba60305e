// Package eval runs the engine (or any Answerer) over benchmark questions
// loaded by package dataset, and records each answer: bounded concurrency,
// seeds, shards, resume, and an append-only results file (one JSON line
// per question and seed) that merges across workers. Each result is
// scored as it is written (package score); reports read the results file
// (package report).
package eval
