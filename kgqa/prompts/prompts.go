// Package prompts holds PARoG's prompt templates, one per stage, embedded in
// the binary, each with the JSON schema of the reply it asks for.
//
// A template file NAME.tmpl defines two blocks, "system" and "user"; the
// file NAME.schema.json beside it is the reply's JSON schema, sent to the
// endpoint as response_format and documenting the shape the engine parses.
// Stages that ask for the same reply share one schema file (see
// sharedSchema): the plan contract has one schema, plan.schema.json.
package prompts

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"strings"
	"text/template"

	"github.com/parog/parog-go/kgqa"
)

// The stages that have a prompt. The names double as llm.Stage values.
const (
	Plan        = "plan"         // the fine-tuned planner: question -> Plan
	PlanFewShot = "plan_fewshot" // the reasoner plans from examples when no planner is configured
	Mentions    = "mentions"     // entity mentions in the question, for linking
	Tentative   = "tentative"    // a parametric answer to one subgoal
	Relations   = "relations"    // keep the offered relations relevant to a subgoal
	Prune       = "prune"        // keep the most relevant candidate entities
	Refine      = "refine"       // verify/correct a tentative answer against evidence
	Sufficiency = "sufficiency"  // can the question be answered now?
	Final       = "final"        // compose the answer from everything gathered
	Select      = "select"       // choose set members by a constraint when values do not parse
	LQTAtoms    = "lqt_atoms"    // planner mode lqt: the question's atomic queries
	LQTRelation = "lqt_relation" // planner mode lqt: how two atomic queries relate
	LQTMerge    = "lqt_merge"    // planner mode lqt: a merge judged with the partial tree as context
	FollowUp    = "followup"     // chat: is the last message new, a follow-up (rewritten standalone) or unsafe?
)

//go:embed *.tmpl *.schema.json
var files embed.FS

// funcs are the functions a template may call.
var funcs = template.FuncMap{
	"join": strings.Join,
	"add1": func(i int) int { return i + 1 },
}

// Names lists every stage with a prompt.
var Names = []string{Plan, PlanFewShot, Mentions, Tentative, Relations, Prune, Refine, Sufficiency, Final, Select, LQTAtoms, LQTRelation, LQTMerge, FollowUp}

// Render executes the template of stage with data and returns the system
// and user messages. The templates were parsed once, when the set was
// made.
func (set *Set) Render(stage string, data any) ([]kgqa.Message, error) {
	msgs := make([]kgqa.Message, 0, 2)
	for _, part := range []string{"system", "user"} {
		t := set.tmpl.Lookup(stage + "." + part)
		if t == nil {
			return nil, fmt.Errorf("prompts: render: no %s block for stage %q", part, stage)
		}
		var b strings.Builder
		if err := t.Execute(&b, data); err != nil {
			return nil, fmt.Errorf("prompts: render %s: %w", stage, err)
		}
		msgs = append(msgs, kgqa.Message{Role: part, Content: strings.TrimSpace(b.String())})
	}
	return msgs, nil
}

// Schema returns the JSON schema of the reply to stage's prompt.
// It is the file compacted (json.Marshal compacts a RawMessage on every
// request anyway), read once; each call returns its own copy.
func Schema(stage string) json.RawMessage {
	b, ok := schemas[stage]
	if !ok {
		panic(fmt.Sprintf("prompts: no schema for stage %q", stage))
	}
	return bytes.Clone(b)
}

// schemaNames holds the response_format name of each stage.
var schemaNames = func() map[string]string {
	m := map[string]string{}
	for _, stage := range Names {
		m[stage] = "parog_" + stage
	}
	return m
}()

// sharedSchema names, for a stage whose reply has another stage's shape,
// the stage whose schema file it uses.
var sharedSchema = map[string]string{"plan_fewshot": "plan"}

// schemas holds every stage's schema, compacted.
var schemas = func() map[string][]byte {
	m := map[string][]byte{}
	for _, stage := range Names {
		file := stage
		if s, ok := sharedSchema[stage]; ok {
			file = s
		}
		raw, err := files.ReadFile(file + ".schema.json")
		if err != nil {
			continue
		}
		var b bytes.Buffer
		if err := json.Compact(&b, raw); err != nil {
			panic(fmt.Sprintf("prompts: schema of stage %q: %v", stage, err))
		}
		m[stage] = b.Bytes()
	}
	return m
}()

// Request builds the llm.Request of stage: rendered messages, the stage's
// schema and its name.
func (set *Set) Request(role kgqa.Role, stage string, data any) (kgqa.ChatRequest, error) {
	msgs, err := set.Render(stage, data)
	if err != nil {
		return kgqa.ChatRequest{}, err
	}
	// The schema is shared, not copied as Schema does: the model client
	// only reads it, and the capacity is cut so an append cannot write
	// into it.
	schema, ok := schemas[stage]
	if !ok {
		panic(fmt.Sprintf("prompts: no schema for stage %q", stage))
	}
	return kgqa.ChatRequest{Role: role, Stage: kgqa.Stage(stage), Messages: msgs, Schema: schema[:len(schema):len(schema)], SchemaName: schemaNames[stage]}, nil
}

// Term renders a term for a prompt: "Germany [m.0345h]", "[m.0abc]" for a
// nameless node, or "\"2014-10-29\" (date)" for a literal.
func Term(t kgqa.Term) string {
	if t.IsEntity() {
		if t.Name == "" {
			return "[" + t.ID + "]"
		}
		return t.Name + " [" + t.ID + "]"
	}
	if dt := shortType(t.Datatype); dt != "" {
		return fmt.Sprintf("%q (%s)", t.Name, dt)
	}
	return fmt.Sprintf("%q", t.Name)
}

func shortType(dt string) string {
	if i := strings.LastIndexAny(dt, "#/"); i >= 0 {
		return dt[i+1:]
	}
	return dt
}

// RelationNamer turns a relation id into words a model reads
// ("location.location.adjoins" -> "location: adjoins"); kg.Dialect is one.
type RelationNamer interface {
	// Readable returns the readable form of relation r.
	Readable(r string) string
}

// Fact renders a fact as one line, with relation names in readable form and
// a path through a mediator node as one fact:
// "France -[location: adjoins]-> Germany [m.0345h]". A mediator whose
// second edge points into it (kg.Fact.Dir2) reads as a chain from the tail
// when both edges point towards the head ("France -[location: adjoin s /
// adjoining relationship: adjoins]-> Germany" for Germany's incoming
// border node), and otherwise names the reversed relation: "A -[r1 /
// reverse of r2]-> B".
func Fact(d RelationNamer, f kgqa.Fact) string {
	names := make([]string, len(f.Path))
	for i, r := range f.Path {
		names[i] = r
		if d != nil {
			names[i] = d.Readable(r)
		}
	}
	if f.SecondDir() == kgqa.In {
		if f.Dir == kgqa.In {
			return Term(f.Tail) + " -[" + names[1] + " / " + names[0] + "]-> " + Term(f.Head)
		}
		return Term(f.Head) + " -[" + names[0] + " / reverse of " + names[1] + "]-> " + Term(f.Tail)
	}
	rel := strings.Join(names, " / ")
	if f.Dir == kgqa.In {
		return Term(f.Tail) + " -[" + rel + "]-> " + Term(f.Head)
	}
	return Term(f.Head) + " -[" + rel + "]-> " + Term(f.Tail)
}
