package oracle

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/parog/parog-go/kgqa/prompts"
)

// What the oracle reads in a prompt. The patterns follow the renderings of
// kgqa/prompts (planview, facts, prompts.Term, prompts.Fact); a change
// there that they miss fails the package's recognition tests.
var (
	questionLine = regexp.MustCompile(`(?m)^Question: (.*)$`)
	lastMsgLine  = regexp.MustCompile(`(?m)^Last user message: (.*)$`)
	currentLine  = regexp.MustCompile(`(?m)^- (\S+) \[.*<== current subgoal\s*$`)
	factLine     = regexp.MustCompile(`(?m)^\s*F(\d+)\. (.*?) -\[(.*)\]-> (.*)$`)
	candLine     = regexp.MustCompile(`(?m)^\s*C(\d+)\. (.*?) -\[(.*)\]-> (.*)$`)
	knownLine    = regexp.MustCompile(`(?m)^- ([A-Za-z][A-Za-z0-9_]*): (.*)$`)
	keepLine     = regexp.MustCompile(`(?m)Keep at most (\d+)`)
	idInBrackets = regexp.MustCompile(`\[([^\[\]\s]+)\]\s*$`)
)

// questionText is the question a prompt is about: its "Question:" line,
// the followup prompt's last user message, or the whole message (the
// planner prompt is the bare question).
func questionText(user string) string {
	if m := questionLine.FindStringSubmatch(user); m != nil {
		return strings.TrimSpace(m[1])
	}
	if m := lastMsgLine.FindStringSubmatch(user); m != nil {
		return strings.TrimSpace(m[1])
	}
	return strings.TrimSpace(user)
}

// currentSubgoal is the id the plan view marks as current.
func currentSubgoal(user string) string {
	if m := currentLine.FindStringSubmatch(user); m != nil {
		return m[1]
	}
	return ""
}

// offeredRelations are the relations a relations prompt offers, as
// "id dir", an id being type.name (the oracle answers Freebase-style
// graphs, whose groups are typed).
func offeredRelations(user string) map[string]bool {
	out := map[string]bool{}
	groups, in := prompts.ReadRelationGroups(user)
	for dir, gs := range map[string][]prompts.RelationGroup{"out": groups, "in": in} {
		for _, g := range gs {
			if g.Type == "" {
				continue
			}
			for _, name := range g.Names {
				out[g.Type+"."+name+" "+dir] = true
			}
		}
	}
	return out
}

// term is an entity or literal as a prompt shows it.
type term struct {
	id, name string
	literal  bool
}

// ref is how a reply names the term: its id, or a literal as shown.
func (t term) ref() string {
	if t.id != "" {
		return t.id
	}
	return t.name
}

// label is the term's name, or its id when nameless.
func (t term) label() string {
	if t.name != "" {
		return t.name
	}
	return t.id
}

// parseTerm reads "Germany [m.0345h]", "[m.0abc]" or "\"1990\" (gYear)".
func parseTerm(s string) term {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, `"`) {
		v := s[1:]
		if i := strings.LastIndex(v, `"`); i >= 0 {
			v = v[:i]
		}
		return term{name: v, literal: true}
	}
	if m := idInBrackets.FindStringSubmatchIndex(s); m != nil {
		return term{id: s[m[2]:m[3]], name: strings.TrimSpace(s[:m[0]])}
	}
	return term{name: s}
}

// fact is one evidence line: left -[relations]-> right.
type fact struct {
	n           int
	left, right term
	// rels are the readable relations of the path, "reverse of" dropped.
	rels []string
}

func parseFacts(re *regexp.Regexp, text string) []fact {
	var out []fact
	for _, m := range re.FindAllStringSubmatch(text, -1) {
		n, _ := strconv.Atoi(m[1])
		f := fact{n: n, left: parseTerm(m[2]), right: parseTerm(m[4])}
		for _, r := range strings.Split(m[3], " / ") {
			f.rels = append(f.rels, strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(r), "reverse of ")))
		}
		out = append(out, f)
	}
	return out
}

// members reads the select prompt's candidate lines ("- Name [id]").
func members(user string) []term {
	_, rest, ok := strings.Cut(user, "Candidates:")
	if !ok {
		return nil
	}
	rest, _, _ = strings.Cut(rest, "Facts:")
	var out []term
	for _, line := range strings.Split(rest, "\n") {
		if s, ok := strings.CutPrefix(strings.TrimSpace(line), "- "); ok {
			out = append(out, parseTerm(s))
		}
	}
	return out
}

// known reads the "Answered so far" results: names, "; "-separated.
func known(user string) []string {
	_, rest, ok := strings.Cut(user, "Answered so far:")
	if !ok {
		return nil
	}
	var out []string
	for _, m := range knownLine.FindAllStringSubmatch(rest, -1) {
		for _, n := range strings.Split(m[2], "; ") {
			out = append(out, strings.TrimSuffix(strings.TrimSpace(n), "..."))
		}
	}
	return out
}

// keepLimit is the prompt's "Keep at most N", or def.
func keepLimit(user string, def int) int {
	if m := keepLine.FindStringSubmatch(user); m != nil {
		if n, err := strconv.Atoi(m[1]); err == nil && n > 0 {
			return n
		}
	}
	return def
}
