package prompts

import (
	"regexp"
	"strconv"
	"strings"
)

var (
	moreLine       = regexp.MustCompile(`(?m)^These are the relations ranked most relevant to the subgoal; (\d+) others are not shown\.`)
	offeredHeading = regexp.MustCompile(`^(out|in) \(the anchor is the (?:subject|object)\):$`)
	offeredLine    = regexp.MustCompile(`^- (?:([a-z][a-z0-9_]*(?:\.[a-z0-9_]+)+): )?(.+)$`)
)

// ReadRelationGroups reads back the offered relations of a rendered
// relations prompt (its user message), by direction, as the template
// wrote them. It is the template's inverse, for the OpenAI-protocol test
// models that answer these prompts; a round-trip test keeps the two in
// step.
func ReadRelationGroups(user string) (out, in []RelationGroup) {
	_, list, ok := strings.Cut(user, "Offered relations")
	if !ok {
		return nil, nil
	}
	var dst *[]RelationGroup
	for _, line := range strings.Split(list, "\n") {
		line = strings.TrimSpace(line)
		if m := offeredHeading.FindStringSubmatch(line); m != nil {
			dst = &out
			if m[1] == "in" {
				dst = &in
			}
			continue
		}
		m := offeredLine.FindStringSubmatch(line)
		if m == nil || dst == nil {
			continue
		}
		*dst = append(*dst, RelationGroup{Type: m[1], Names: strings.Split(m[2], ", ")})
	}
	return out, in
}

// ReadMore reads back RelationsData.More from a rendered relations prompt:
// the relations a short first page leaves unshown, 0 when the prompt
// shows the whole offer (or a later page of it).
func ReadMore(user string) int {
	m := moreLine.FindStringSubmatch(user)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}
