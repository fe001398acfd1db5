package rank

// SetStepBonus sets stepBonus and stepMinContent for a test and returns a function restoring
// them.
func SetStepBonus(bonus float64, words int) (restore func()) {
	b, w := stepBonus, stepMinContent
	stepBonus, stepMinContent = bonus, words
	return func() { stepBonus, stepMinContent = b, w }
}

// SetLiteralWeight sets literalWeight for a test and returns a function restoring it.
func SetLiteralWeight(w float64) (restore func()) {
	old := literalWeight
	literalWeight = w
	return func() { literalWeight = old }
}

// SetHintWeight sets hintWeight for a test and returns a function restoring it.
func SetHintWeight(w float64) (restore func()) {
	old := hintWeight
	hintWeight = w
	return func() { hintWeight = old }
}

// SetStepSpread sets stepSpread for a test and returns a function restoring it.
func SetStepSpread(w float64) (restore func()) {
	old := stepSpread
	stepSpread = w
	return func() { stepSpread = old }
}

// SetStepLead sets stepLead for a test and returns a function restoring it.
func SetStepLead(w float64) (restore func()) {
	old := stepLead
	stepLead = w
	return func() { stepLead = old }
}

// SetStepTopic sets stepTopic for a test and returns a function restoring it.
func SetStepTopic(w float64) (restore func()) {
	old := stepTopic
	stepTopic = w
	return func() { stepTopic = old }
}

// SetQueryStop turns the query's own stop words (queryStop, lexicon.go) off for a test
// when off is true, and returns a function restoring them.
func SetQueryStop(off bool) (restore func()) {
	old := queryStop
	if off {
		queryStop = map[string]bool{}
	}
	return func() { queryStop = old }
}

// SetStepAnaphora sets stepAnaphora for a test and returns a function restoring it.
func SetStepAnaphora(w float64) (restore func()) {
	old := stepAnaphora
	stepAnaphora = w
	return func() { stepAnaphora = old }
}
