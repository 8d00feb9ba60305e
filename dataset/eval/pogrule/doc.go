// Package pogrule reproduces the scoring rule of Plan-on-Graph's
// published evaluation script, defects included, so that a report can
// quote the figure PoG's authors would compute beside the strict one. It
// reads PoG's replies and gold files as the script does.
package pogrule
