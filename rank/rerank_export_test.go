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
	return setVar(&literalWeight, w)
}

// SetHintWeight sets hintWeight for a test and returns a function restoring it.
func SetHintWeight(w float64) (restore func()) {
	return setVar(&hintWeight, w)
}

// SetStepSpread sets stepSpread for a test and returns a function restoring it.
func SetStepSpread(w float64) (restore func()) {
	return setVar(&stepSpread, w)
}

// SetStepLead sets stepLead for a test and returns a function restoring it.
func SetStepLead(w float64) (restore func()) {
	return setVar(&stepLead, w)
}

// SetStepTopic sets stepTopic for a test and returns a function restoring it.
func SetStepTopic(w float64) (restore func()) {
	return setVar(&stepTopic, w)
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
	return setVar(&stepAnaphora, w)
}

// SetStepLeadMargin sets stepLeadMargin for a test and returns a function restoring it.
func SetStepLeadMargin(w float64) (restore func()) {
	return setVar(&stepLeadMargin, w)
}
