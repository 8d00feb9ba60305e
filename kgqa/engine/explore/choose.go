package explore

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/kg"
	"github.com/parog/parog-go/kgqa/prompts"
)

type relationsReply struct {
	Relations []struct {
		ID  string `json:"id"`
		Dir string `json:"dir"`
	} `json:"relations"`
	Reason string `json:"reason"`
}

// choose asks the model which offered relations to keep (at most max).
// A reply names a relation by its full id or its name alone, in any case,
// and is resolved against the offered set only. Relations it names that
// were not offered are recorded and dropped; a reply naming only such
// relations is sent back once for repair. A model that still names no
// offered relation, or gives no reply in shape, does not fail the
// question: the offered relations that share words with the subgoal are
// kept instead, and the fallback recorded in the round.
// It returns the prompt's size in tokens.
func (x *Explorer) choose(ctx context.Context, rd *kgqa.Round, offered []kgqa.Relation, max int) (int, error) {
	req, err := x.relationsRequest(rd, offered, max)
	if err != nil {
		return 0, err
	}
	return x.chooseRendered(ctx, rd, offered, max, req)
}

// chooseRendered is choose with the prompt of offered already rendered.
func (x *Explorer) chooseRendered(ctx context.Context, rd *kgqa.Round, offered []kgqa.Relation, max int, req kgqa.ChatRequest) (int, error) {
	tokens := promptTokens(req)
	ix := newOfferedIndex(offered)
	var rep relationsReply
	var chosen []kgqa.Relation
	var rejected, hallucinated []kgqa.RejectedRelation // hallucinated spans the repair turn
	check := func() error {
		chosen, rejected = nil, nil
		dup := map[kgqa.Relation]bool{}
		var firstErr error
		for _, c := range rep.Relations {
			r, err := ix.resolve(c.ID, c.Dir)
			switch {
			case err != nil:
				reason := "not_offered"
				if errors.Is(err, errAmbiguousName) {
					reason = "ambiguous"
				} else {
					err = fmt.Errorf("%s (%s) was not offered", c.ID, c.Dir)
				}
				if firstErr == nil {
					firstErr = err
				}
				h := kgqa.RejectedRelation{ID: c.ID, Dir: c.Dir, Reason: reason}
				rejected = append(rejected, h)
				hallucinated = append(hallucinated, h)
			case dup[r]:
			case len(chosen) >= max:
				rejected = append(rejected, kgqa.RejectedRelation{ID: c.ID, Dir: c.Dir, Reason: "over_budget"})
			default:
				dup[r] = true
				chosen = append(chosen, r)
			}
		}
		if len(chosen) == 0 && firstErr != nil {
			return fmt.Errorf("none of the relations named was offered: %w; answer only with offered relations", firstErr)
		}
		return nil
	}
	_, err := x.env.Chat.JSON(ctx, req, &rep, check)
	rd.Rejected = hallucinated
	for _, r := range rejected {
		if r.Reason == "over_budget" {
			rd.Rejected = append(rd.Rejected, r)
		}
	}
	if errors.Is(err, kgqa.ErrSchema) {
		rd.Chosen, rd.ChosenBy = x.lexicalPick(rd.Anchors, offered, max), "lexical_fallback"
		rd.Fallback = "the model gave no offered relation in shape, repair included (" + err.Error() + "); kept the offered relations sharing most words with the subgoal"
		return tokens, nil
	}
	if err != nil {
		return tokens, x.fail(err)
	}
	rd.Chosen, rd.ChosenBy = chosen, "llm"
	return tokens, nil
}

// relationsData is the relations prompt's data for the round's anchors
// and the offered relations.
func (x *Explorer) relationsData(rd *kgqa.Round, offered []kgqa.Relation, max int) prompts.RelationsData {
	data := prompts.RelationsData{Plan: x.sub.View(), Subgoal: x.sub.Text, Max: max, Attribute: x.attrHint}
	for _, a := range rd.Anchors {
		data.Anchors = append(data.Anchors, prompts.Term(a))
	}
	if len(data.Anchors) > 20 {
		data.Anchors = append(data.Anchors[:20], fmt.Sprintf("and %d more", len(rd.Anchors)-20))
	}
	data.Out, data.In = groupRelations(x.env.Graph.Dialect(), offered)
	return data
}

// lexicalPick returns up to max offered relations that share words with
// the subgoal (see relationQuery), most first; none when no relation
// shares a word.
func (x *Explorer) lexicalPick(anchors []kgqa.Term, offered []kgqa.Relation, max int) []kgqa.Relation {
	d := x.env.Graph.Dialect()
	q := Tokens(x.RelationQuery(anchors))
	type scored struct {
		r kgqa.Relation
		s float64
	}
	var cands []scored
	for _, r := range offered {
		if s := Overlap(q, Tokens(d.Readable(r.ID))); s > 0 {
			cands = append(cands, scored{r, s})
		}
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].s > cands[j].s })
	out := []kgqa.Relation{}
	for _, c := range cands[:min(len(cands), max)] {
		out = append(out, c.r)
	}
	return out
}

// RelationType splits a relation id into its type and name at the last
// dot ("location.location.adjoin_s" -> "location.location", "adjoin_s");
// an id without a dot (a Wikidata property) has no type.
func RelationType(id string) (typ, name string) {
	i := strings.LastIndexByte(id, '.')
	if i <= 0 || i == len(id)-1 {
		return "", id
	}
	return id[:i], id[i+1:]
}

// groupRelations renders the offered relations compactly for the
// relations prompt: one line per type and direction, types and names in
// alphabetical order, so that the prompt does not depend on the order
// the KG lists them in. Ids without a type are shown by their readable
// name, which carries the id.
func groupRelations(d kg.Dialect, offered []kgqa.Relation) (out, in []prompts.RelationGroup) {
	type key struct {
		dir kgqa.Direction
		typ string
	}
	names := map[key][]string{}
	for _, r := range offered {
		typ, name := RelationType(r.ID)
		if typ == "" {
			name = d.Readable(r.ID)
		}
		k := key{r.Dir, typ}
		names[k] = append(names[k], name)
	}
	keys := make([]key, 0, len(names))
	for k := range names {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].typ < keys[j].typ })
	for _, k := range keys {
		ns := names[k]
		sort.Strings(ns)
		g := prompts.RelationGroup{Type: k.typ, Names: ns}
		if k.dir == kgqa.In {
			in = append(in, g)
		} else {
			out = append(out, g)
		}
	}
	return out, in
}

// errAmbiguousName is a short relation name that more than one offered
// relation of the direction has.
var errAmbiguousName = errors.New("ambiguous")

// offeredIndex resolves a model's relation reply against the relations
// offered, and only those: the full id or, for an id with a type, its
// name alone, each compared without regard to case.
type offeredIndex struct {
	full  map[relKey]kgqa.Relation   // lower-case id, direction
	short map[relKey][]kgqa.Relation // lower-case name, direction
}

// relKey is a relation id or name, lower-case, with a direction.
type relKey struct{ id, dir string }

func newOfferedIndex(offered []kgqa.Relation) *offeredIndex {
	ix := &offeredIndex{full: make(map[relKey]kgqa.Relation, len(offered)), short: make(map[relKey][]kgqa.Relation, len(offered))}
	for _, r := range offered {
		ix.full[relKey{strings.ToLower(r.ID), string(r.Dir)}] = r
		if typ, name := RelationType(r.ID); typ != "" {
			k := relKey{strings.ToLower(name), string(r.Dir)}
			ix.short[k] = append(ix.short[k], r)
		}
	}
	return ix
}

// resolve returns the offered relation the reply (id, dir) names.
func (ix *offeredIndex) resolve(id, dir string) (kgqa.Relation, error) {
	id = strings.ToLower(strings.TrimSpace(id))
	dir = strings.ToLower(strings.TrimSpace(dir))
	if r, ok := ix.full[relKey{id, dir}]; ok {
		return r, nil
	}
	switch rs := ix.short[relKey{id, dir}]; len(rs) {
	case 0:
		return kgqa.Relation{}, errNotOffered
	case 1:
		return rs[0], nil
	default:
		return kgqa.Relation{}, fmt.Errorf("%w: %d offered relations are named %q (%s and %s): give the full id", errAmbiguousName, len(rs), id, rs[0].ID, rs[1].ID)
	}
}

var errNotOffered = errors.New("not offered")

// promptTokens counts a request's tokens as about four bytes each, as the
// benchmarks do.
func promptTokens(req kgqa.ChatRequest) int {
	n := 0
	for _, m := range req.Messages {
		n += len(m.Content)
	}
	return (n + 3) / 4
}

// relationsRequest renders the relations prompt that offers offered.
func (x *Explorer) relationsRequest(rd *kgqa.Round, offered []kgqa.Relation, max int) (kgqa.ChatRequest, error) {
	req, err := x.env.Prompts.Request(kgqa.Reasoner, prompts.Relations, x.relationsData(rd, offered, max))
	if err != nil {
		return kgqa.ChatRequest{}, x.fail(err)
	}
	return req, nil
}
