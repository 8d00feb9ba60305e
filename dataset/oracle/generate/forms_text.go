package generate

// The forms' wording: each hop is named from its relation's readable
// name, as the shapes' are, but the phrases and the question around them
// are drawn from several templates, so that no form has one wording a
// planner could learn by heart.

// ofTopic names the values of rel from the topic name t: "the capital of
// T", "T's capital", or, for a verb phrase, "the films T is directed by".
func (m *maker) ofTopic(rel, t string) string {
	if prepositional(rel) {
		return m.setPhrase(t, rel)
	}
	w := words(rel)
	return m.pickText("the "+w+" of "+t, t+"'s "+w, "the "+w+" that "+t+" has")
}

// ofSet names the values of rel from the set a phrase names.
func (m *maker) ofSet(rel, inner string) string {
	if prepositional(rel) {
		return "the " + plural(m.rangeNoun(rel)) + " " + inner + " is " + words(rel)
	}
	w := words(rel)
	return m.pickText("the "+w+" of "+inner, "the "+w+" belonging to "+inner)
}

// through names what a mediator hop reaches: the rOut of the mediators
// that rIn leads to from the set a phrase names.
func (m *maker) through(rIn, rOut, inner string) string {
	in, out := words(rIn), words(rOut)
	if prepositional(rOut) {
		return "the " + plural(m.rangeNoun(rOut)) + " the " + in + " of " + inner + " is " + out
	}
	return m.pickText("the "+out+" in the "+in+" of "+inner, "the "+out+" named in the "+in+" of "+inner,
		"the "+out+" of the "+in+" of "+inner)
}

// askOne asks for the values of rel from the set phrase p names.
func (m *maker) askOne(rel, p string) string {
	w := words(rel)
	if prepositional(rel) {
		n := m.rangeNoun(rel)
		return m.texts("What is "+p+" "+w+"?", "Which "+n+" is "+p+" "+w+"?", p+" is "+w+" which "+n+"?")
	}
	return m.texts("What is the "+w+" of "+p+"?", "Which "+w+" does "+p+" have?", p+" has what "+w+"?",
		"For "+p+", what is the "+w+"?", "Can you name the "+w+" of "+p+"?")
}

// askUnion asks for the values of rel over all of the several members of
// the set phrase p names.
func (m *maker) askUnion(rel, p string) string {
	w := words(rel)
	if prepositional(rel) {
		n := plural(m.rangeNoun(rel))
		return m.texts("What "+n+" are "+p+" "+w+"?", "Which "+n+" is any of "+p+" "+w+"?")
	}
	return m.texts("What "+w+" do "+p+" have?", "Which "+w+" does any of "+p+" have?",
		"What is the "+w+" of each of "+p+"?", "Taken together, what "+w+" do "+p+" have?")
}

// askWhich asks which members of the set phrase set names satisfy the
// clauses, joined by "and".
func (m *maker) askWhich(set string, clauses ...string) string {
	c := clauses[0]
	for _, x := range clauses[1:] {
		c += " and " + x
	}
	return m.texts("Which of "+set+" "+c+"?", "Among "+set+", which "+c+"?",
		"Of "+set+", which one "+c+"?")
}

// pickText draws one of the phrases, not capitalised.
func (m *maker) pickText(alts ...string) string { return alts[m.rng.IntN(len(alts))] }
