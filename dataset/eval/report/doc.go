// Package report reads results files (ours, and PoG's released ones) and
// writes the eval reports: Markdown, JSON and the self-contained HTML
// page, by seed and question type, with cost and efficiency, and the diff
// of two runs question by question (with McNemar's test).
package report
