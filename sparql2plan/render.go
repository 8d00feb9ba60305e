package sparql2plan

import (
	"fmt"
	"strings"

	"github.com/parog/parog-go/kgqa"
)

// webqspNow is the date WebQSP's time-validity filters use for "now"
// (the Freebase dump date): a filter on it means "current".
const webqspNow = "2015-08-10"

// Namer returns the display name of an entity id ("" when unknown).
type Namer func(id string) string

// RenderTemplate renders each step as one deterministic English subgoal,
// using readable relation names, entity names from names and "#1"-style
// references to earlier steps. texts[i] belongs to steps[i].
func RenderTemplate(steps []Step, names Namer) []string {
	ref := map[string]string{}
	for i, s := range steps {
		ref[s.ID] = fmt.Sprintf("#%d", i+1)
	}
	r := renderer{names: names, ref: ref}
	out := make([]string, len(steps))
	for i, s := range steps {
		out[i] = r.step(s)
	}
	return out
}

type renderer struct {
	names Namer
	ref   map[string]string
}

func (r renderer) name(id string) string {
	if r.names != nil {
		if n := r.names(id); n != "" {
			return n
		}
	}
	return id
}

func (r renderer) refs(ids []string) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = r.ref[id]
	}
	switch len(parts) {
	case 0:
		return "the previous results"
	case 1:
		return parts[0]
	case 2:
		return parts[0] + " and " + parts[1]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

func (r renderer) step(s Step) string {
	switch s.Op {
	case kgqa.OpFind:
		return "Find " + r.find(s) + "."
	case kgqa.OpIntersect:
		if len(s.Needs) == 2 {
			return fmt.Sprintf("Find the %s in both %s.", noun(s.Types, "entities"), r.refs(s.Needs))
		}
		return fmt.Sprintf("Find the %s in all of %s.", noun(s.Types, "entities"), r.refs(s.Needs))
	case kgqa.OpUnion:
		return fmt.Sprintf("Combine %s.", r.refs(s.Needs))
	case kgqa.OpFilter:
		if len(s.Qualifiers) > 0 {
			return fmt.Sprintf("Keep those of %s that are %s.", r.refs(s.Needs), strings.TrimSpace(r.qualifiers(s.Qualifiers)))
		}
		return fmt.Sprintf("Keep those of %s whose %s is %s.", r.refs(s.Needs), pathWords(s.Path), s.Literal)
	case kgqa.OpCompare:
		return fmt.Sprintf("Keep those of %s whose %s is %s %s.", r.refs(s.Needs), s.Args.Attribute, cmpWords[s.Args.Cmp], s.Args.Value)
	case kgqa.OpSuperlative:
		return fmt.Sprintf("Find the one of %s with the %s %s.", r.refs(s.Needs), orderWord(s.Args), s.Args.Attribute)
	case kgqa.OpCount:
		return fmt.Sprintf("Count the members of %s.", r.refs(s.Needs))
	}
	return string(s.Op) + " " + r.refs(s.Needs)
}

// find renders "the team mascot of Lou Seal"-style phrases hop by hop.
func (r renderer) find(s Step) string {
	var cur string
	switch {
	case len(s.Anchors) > 0:
		names := make([]string, len(s.Anchors))
		for i, a := range s.Anchors {
			names[i] = r.name(a)
		}
		cur = strings.Join(names, " or ")
	case len(s.Needs) > 0:
		cur = r.refs(s.Needs)
	case s.Literal != "":
		cur = `"` + s.Literal + `"`
	default:
		return "all " + noun(s.Types, "entities")
	}
	for i, h := range s.Path {
		last := i == len(s.Path)-1
		if h.Reverse {
			n := "ones"
			if last {
				n = noun(s.Types, "entities")
			}
			cur = fmt.Sprintf("the %s whose %s is %s", n, readable(h.Relation), cur)
			continue
		}
		cur = fmt.Sprintf("the %s of %s", readable(h.Relation), cur)
		if n := noun(s.Types, ""); last && n != "" {
			cur += " (" + n + ")"
		}
	}
	return cur + r.qualifiers(s.Qualifiers)
}

func (r renderer) qualifiers(qs []Qualifier) string {
	var b strings.Builder
	current := false
	for _, q := range qs {
		switch {
		case q.During != "":
			b.WriteString(" during " + r.name(q.During))
		case q.Cmp != "" && q.Value != "":
			if strings.HasPrefix(q.Value, webqspNow) {
				if !current {
					b.WriteString(" currently")
					current = true
				}
				continue
			}
			fmt.Fprintf(&b, " with %s %s %s", readable(q.Relation), cmpWords[q.Cmp], q.Value)
		case q.Entity != "":
			fmt.Fprintf(&b, " with %s %s", readable(q.Relation), r.name(q.Entity))
		case q.Value != "":
			fmt.Fprintf(&b, " with %s %s", readable(q.Relation), q.Value)
		}
	}
	return b.String()
}

var cmpWords = map[string]string{"<": "less than", "<=": "at most", ">": "greater than", ">=": "at least", "=": "equal to"}

func orderWord(a *kgqa.Args) string {
	dateLike := false
	for _, w := range []string{"date", "time", "year", "released", "founded", "start", "from", "opened", "born"} {
		if strings.Contains(a.Attribute, w) {
			dateLike = true
		}
	}
	switch {
	case a.Order == "max" && dateLike:
		return "latest"
	case a.Order == "min" && dateLike:
		return "earliest"
	case a.Order == "max":
		return "largest"
	}
	return "smallest"
}

// noun names a set by its first named type ("play"), else def.
func noun(types []string, def string) string {
	for _, t := range types {
		if !strings.HasPrefix(t, notablePrefix) {
			return readable(t)
		}
	}
	return def
}

func pathWords(p []Hop) string {
	parts := make([]string, len(p))
	for i, h := range p {
		parts[len(p)-1-i] = readable(h.Relation)
	}
	return strings.Join(parts, " of ")
}
