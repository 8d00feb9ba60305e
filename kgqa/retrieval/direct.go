package retrieval

import (
	"errors"
	"math/big"
	"regexp"
	"strings"
)

// Direct is the answer to a question that needs no KG.
type Direct struct {
	// Answer is the reply.
	Answer string
	// Reason is ReasonGreeting, ReasonArithmetic or ReasonService.
	Reason string
}

// Replies of the direct route. They are fixed text: a question routed
// direct costs no model call.
const (
	GreetingReply = "Hello. Ask me a question about the knowledge graph, such as who directed a film or where someone was born."
	ServiceReply  = "I answer questions over a knowledge graph: I plan the question as subgoals, explore the graph for each, and check every answer against the facts found."
)

// Whole-question phrases only: a question that merely contains "hello" or
// "help" is a KG question ("What is the song Hello about?").
var (
	greetings = set("hi", "hello", "hey", "hi there", "hello there", "hey there", "good morning",
		"good afternoon", "good evening", "thanks", "thank you", "thank you very much", "thanks a lot",
		"bye", "goodbye")
	serviceQuestions = set("who are you", "what are you", "what can you do", "what do you do",
		"how do you work", "how does this work", "help", "what is parog", "what's parog",
		"what is parog-go", "what questions can you answer", "what can i ask you", "what can i ask")
	// dateLikeRE is "9/11" or "7/4/1776": a date or an event's name
	// rather than a division.
	dateLikeRE   = regexp.MustCompile(`^\s*\d{1,2}/\d{1,2}(/\d{2,4})?\s*$`)
	arithmeticRE = regexp.MustCompile(`^(?:what is|what's|whats|calculate|compute|how much is)?\s*([-+*/×÷x^()0-9.\s]+?)\s*(?:=|equals)?\s*$`)
)

func set(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// DirectAnswer reports whether question needs no KG, and answers it: a
// greeting or thanks, a question about the service itself, or arithmetic
// on numbers (evaluated exactly). Only a whole question of that shape
// qualifies.
func DirectAnswer(question string) (Direct, bool) {
	q := strings.ToLower(strings.TrimSpace(question))
	q = strings.TrimRight(q, "?!. ")
	q = strings.Join(strings.Fields(q), " ")
	switch {
	case q == "":
		return Direct{}, false
	case greetings[q]:
		return Direct{Answer: GreetingReply, Reason: ReasonGreeting}, true
	case serviceQuestions[q]:
		return Direct{Answer: ServiceReply, Reason: ReasonService}, true
	}
	m := arithmeticRE.FindStringSubmatch(q)
	if m == nil || dateLikeRE.MatchString(m[1]) {
		return Direct{}, false
	}
	v, err := evaluate(m[1])
	switch {
	case errors.Is(err, errDivZero):
		return Direct{Answer: "Division by zero has no value.", Reason: ReasonArithmetic}, true
	case err != nil:
		return Direct{}, false
	}
	return Direct{Answer: format(v), Reason: ReasonArithmetic}, true
}

func format(v *big.Rat) string {
	if v.IsInt() {
		return v.Num().String()
	}
	s := v.FloatString(10)
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

var (
	errSyntax  = errors.New("not arithmetic")
	errDivZero = errors.New("division by zero")
)

// operators spells the multiplication and division signs as the parser
// reads them.
var operators = strings.NewReplacer("×", "*", "÷", "/", "x", "*")

// evaluate computes an expression of numbers, + - * / ^ and parentheses.
// It needs at least one operator between two numbers: a bare number ("1990")
// is no arithmetic question.
func evaluate(expr string) (*big.Rat, error) {
	p := &parser{s: operators.Replace(strings.ReplaceAll(expr, " ", ""))}
	v, err := p.sum()
	if err != nil {
		return nil, err
	}
	if p.i != len(p.s) || p.ops == 0 {
		return nil, errSyntax
	}
	return v, nil
}

type parser struct {
	s   string
	i   int
	ops int // binary operators seen
}

func (p *parser) peek() byte {
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *parser) sum() (*big.Rat, error) {
	v, err := p.product()
	for err == nil && (p.peek() == '+' || p.peek() == '-') {
		op := p.peek()
		p.i++
		p.ops++
		var w *big.Rat
		if w, err = p.product(); err == nil {
			if op == '+' {
				v = new(big.Rat).Add(v, w)
			} else {
				v = new(big.Rat).Sub(v, w)
			}
		}
	}
	return v, err
}

func (p *parser) product() (*big.Rat, error) {
	v, err := p.power()
	for err == nil && (p.peek() == '*' || p.peek() == '/') {
		op := p.peek()
		p.i++
		p.ops++
		var w *big.Rat
		if w, err = p.power(); err != nil {
			break
		}
		if op == '*' {
			v = new(big.Rat).Mul(v, w)
			continue
		}
		if w.Sign() == 0 {
			return nil, errDivZero
		}
		v = new(big.Rat).Quo(v, w)
	}
	return v, err
}

// power handles "^" with a small non-negative integer exponent only, so
// that no input can ask for an unbounded computation.
func (p *parser) power() (*big.Rat, error) {
	v, err := p.unary()
	if err != nil || p.peek() != '^' {
		return v, err
	}
	p.i++
	p.ops++
	e, err := p.unary()
	if err != nil {
		return nil, err
	}
	if !e.IsInt() || e.Sign() < 0 || e.Num().Cmp(big.NewInt(64)) > 0 {
		return nil, errSyntax
	}
	out := big.NewRat(1, 1)
	for range e.Num().Int64() {
		out.Mul(out, v)
	}
	return out, nil
}

func (p *parser) unary() (*big.Rat, error) {
	if p.peek() == '-' {
		p.i++
		v, err := p.unary()
		if err != nil {
			return nil, err
		}
		return new(big.Rat).Neg(v), nil
	}
	if p.peek() == '(' {
		p.i++
		v, err := p.sum()
		if err != nil {
			return nil, err
		}
		if p.peek() != ')' {
			return nil, errSyntax
		}
		p.i++
		return v, nil
	}
	start := p.i
	for p.i < len(p.s) && (p.s[p.i] >= '0' && p.s[p.i] <= '9' || p.s[p.i] == '.') {
		p.i++
	}
	if start == p.i || p.i-start > 30 {
		return nil, errSyntax
	}
	v, ok := new(big.Rat).SetString(p.s[start:p.i])
	if !ok {
		return nil, errSyntax
	}
	return v, nil
}
