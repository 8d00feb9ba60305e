package dataset

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// Yield receives each well-formed question; returning an error stops the
// load with that error.
type Yield func(Question) error

// Decode streams the questions of an input in format f from r. Each
// well-formed record goes to yield; each malformed one goes to onSkip (which
// may be nil) and the decode goes on. It returns an error when r is not a
// readable JSON document of the expected shape, when ctx is done, or when
// yield fails.
func Decode(ctx context.Context, r io.Reader, f Format, yield Yield, onSkip func(Skipped)) error {
	return DecodeRecords(ctx, r, f, func(q Question, _ json.RawMessage) error { return yield(q) }, onSkip)
}

// DecodeRecords is Decode that also hands yield each question's record as
// the file holds it, so a filtered copy can be written in the input's own
// format.
func DecodeRecords(ctx context.Context, r io.Reader, f Format, yield func(Question, json.RawMessage) error, onSkip func(Skipped)) error {
	conv, err := converter(f)
	if err != nil {
		return err
	}
	if onSkip == nil {
		onSkip = func(Skipped) {}
	}
	dec := json.NewDecoder(bufio.NewReaderSize(r, 64<<10))
	dec.UseNumber()
	each := func(i int, raw json.RawMessage) error {
		q, id, err := conv(raw)
		if err != nil {
			onSkip(Skipped{Index: i, ID: id, Reason: err.Error()})
			return nil
		}
		q.Source = f
		return yield(q, raw)
	}
	if f == WebQSP {
		return decodeWebQSPEnvelope(ctx, dec, each)
	}
	return decodeArray(ctx, dec, each)
}

// Loaded is the result of LoadFile.
type Loaded struct {
	// Questions are the well-formed questions in file order.
	Questions []Question
	// Skipped are the malformed records left out.
	Skipped []Skipped
}

// LoadFile reads a whole file in format f.
func LoadFile(ctx context.Context, path string, f Format) (Loaded, error) {
	var out Loaded
	err := DecodeFile(ctx, path, f, func(q Question) error {
		out.Questions = append(out.Questions, q)
		return nil
	}, func(s Skipped) { out.Skipped = append(out.Skipped, s) })
	return out, err
}

// DecodeFile is Decode over the file at path.
func DecodeFile(ctx context.Context, path string, f Format, yield Yield, onSkip func(Skipped)) error {
	fh, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("dataset: open: %w", err)
	}
	defer fh.Close()
	if err := Decode(ctx, fh, f, yield, onSkip); err != nil {
		return fmt.Errorf("%w (file %s)", err, path)
	}
	return nil
}

// ErrBadFile is wrapped by errors about the framing of an input file (not
// JSON, not an array, truncated).
var ErrBadFile = errors.New("dataset: bad input file")

func badFile(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrBadFile, fmt.Sprintf(format, a...))
}

// decodeArray reads a JSON array from dec and calls each per element.
func decodeArray(ctx context.Context, dec *json.Decoder, each func(int, json.RawMessage) error) error {
	tok, err := dec.Token()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return badFile("empty input, want a JSON array of questions")
		}
		return badFile("not JSON: %v", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return badFile("want a JSON array of questions, found %v", describe(tok))
	}
	return decodeArrayBody(ctx, dec, each)
}

// decodeArrayBody reads the elements of an array whose '[' was read.
func decodeArrayBody(ctx context.Context, dec *json.Decoder, each func(int, json.RawMessage) error) error {
	for i := 0; dec.More(); i++ {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("dataset: decode: %w", err)
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return badFile("record %d: %v", i, err)
		}
		if err := each(i, raw); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil {
		return badFile("unterminated array: %v", err)
	}
	return nil
}

// decodeWebQSPEnvelope finds the "Questions" array in WebQSP's top-level
// object, skipping the other keys (Version, FreebaseVersion). A top-level
// array of questions (the shape PoG distributes) is read as it is.
func decodeWebQSPEnvelope(ctx context.Context, dec *json.Decoder, each func(int, json.RawMessage) error) error {
	tok, err := dec.Token()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return badFile("empty input, want a WebQSP object with Questions")
		}
		return badFile("not JSON: %v", err)
	}
	if d, ok := tok.(json.Delim); ok && d == '[' {
		return decodeArrayBody(ctx, dec, each)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return badFile("want a WebQSP object {\"Questions\": [...]} or an array of questions, found %v", describe(tok))
	}
	found := false
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return badFile("%v", err)
		}
		if key, _ := kt.(string); key == "Questions" {
			found = true
			if err := decodeArray(ctx, dec, each); err != nil {
				return err
			}
			continue
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return badFile("%v", err)
		}
	}
	if !found {
		return badFile("WebQSP object has no \"Questions\" array")
	}
	return nil
}

func describe(tok json.Token) string {
	switch t := tok.(type) {
	case json.Delim:
		return "'" + t.String() + "'"
	case string:
		return "a string"
	case nil:
		return "null"
	default:
		return fmt.Sprintf("%T", tok)
	}
}

type convertFunc func(raw json.RawMessage) (q Question, id string, err error)

func converter(f Format) (convertFunc, error) {
	switch f {
	case CWQ:
		return convertCWQ, nil
	case GrailQA:
		return convertGrailQA, nil
	case WebQSP:
		return convertWebQSP, nil
	case Demo:
		return convertDemo, nil
	case WebQuestions:
		return convertWebQuestions, nil
	case SimpleQuestions:
		return convertSimpleQuestions, nil
	case QALD:
		return convertQALD, nil
	}
	return nil, fmt.Errorf("dataset: unknown format %q", f)
}

// strictRecord decodes raw into v, reporting wrong types as a reason.
func strictRecord(raw json.RawMessage, v any) error {
	if len(bytes.TrimSpace(raw)) == 0 || raw[0] != '{' {
		return errors.New("record is not a JSON object")
	}
	if err := json.Unmarshal(raw, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return fmt.Errorf("field %q: want %s, found JSON %s", te.Field, te.Type, te.Value)
		}
		return err
	}
	return nil
}

// peekID extracts an id field from a record that failed to decode, so the
// skip report can name it.
func peekID(raw json.RawMessage, key string) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return ""
	}
	return scalarText(m[key])
}

// scalarText renders a JSON string or number as text; other values give "".
func scalarText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String()
	}
	return ""
}

// entityMap decodes a {"m.xxx": "name"} object keeping file order, which a
// Go map would lose.
func entityMap(raw json.RawMessage) ([]Entity, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("topic entities: want an object of id -> name")
	}
	var out []Entity
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var name string
		if err := dec.Decode(&name); err != nil {
			return nil, fmt.Errorf("topic entity %v: name is not a string", kt)
		}
		id, _ := NormalizeMID(kt.(string))
		out = appendEntity(out, Entity{ID: id, Name: name})
	}
	return out, nil
}

func appendEntity(es []Entity, e Entity) []Entity {
	if e.ID == "" {
		return es
	}
	for i, x := range es {
		if x.ID == e.ID {
			if x.Name == "" {
				es[i].Name = e.Name
			}
			return es
		}
	}
	return append(es, e)
}

func appendAnswer(as []Answer, a Answer) []Answer {
	for _, x := range as {
		if x.ID == a.ID && (x.ID != "" || x.Name == a.Name) {
			return as
		}
	}
	return append(as, a)
}
