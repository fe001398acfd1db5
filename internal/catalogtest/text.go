package catalogtest

import (
	"strings"
)

// stopwords are short function words that substitution leaves in place, so rewritten
// text keeps the grammar of its template.
var stopwords = map[string]bool{
	"about": true, "also": true, "been": true, "being": true, "both": true, "does": true,
	"each": true, "either": true, "from": true, "have": true, "into": true, "must": true,
	"only": true, "other": true, "should": true, "some": true, "such": true, "than": true,
	"that": true, "their": true, "them": true, "then": true, "there": true, "these": true,
	"they": true, "this": true, "those": true, "when": true, "where": true, "which": true,
	"while": true, "will": true, "with": true, "within": true, "without": true, "would": true,
	"your": true, "what": true, "were": true, "more": true, "most": true, "many": true,
	"used": true, "uses": true, "using": true, "after": true, "before": true, "same": true,
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// contentWord reports whether w (lower case) is a word substitution may replace.
func contentWord(w string) bool { return len(w) >= 4 && !stopwords[w] }

// forWords calls f with each maximal run of ASCII letters in s and its offset.
func forWords(s string, f func(start int, w string)) {
	for i := 0; i < len(s); {
		if !isLetter(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && isLetter(s[j]) {
			j++
		}
		f(i, s[i:j])
		i = j
	}
}

// matchCase returns w (lower case) spelled in the case pattern of model: all capitals,
// a capital first letter, or lower case.
func matchCase(w, model string) string {
	if w == "" || model == "" {
		return w
	}
	upper := 0
	for i := 0; i < len(model); i++ {
		if 'A' <= model[i] && model[i] <= 'Z' {
			upper++
		}
	}
	switch {
	case len(model) > 1 && upper == len(model):
		return strings.ToUpper(w)
	case 'A' <= model[0] && model[0] <= 'Z':
		return strings.ToUpper(w[:1]) + w[1:]
	}
	return w
}

// splitName splits a tool or parameter name into its segments and the separators
// between them: "acr_registry_list" is [acr registry list] joined by "_", "API-get-user"
// [API get user] by "-", "mergeRequestIid" [merge Request Iid] by "". A leading or
// trailing separator stays on its segment, so joinName(splitName(n)) == n.
func splitName(name string) (segs, seps []string) {
	isSep := func(c byte) bool { return c == '_' || c == '-' || c == '.' }
	sep := ""
	for i := 0; i < len(name); {
		j := i
		for j < len(name) && isSep(name[j]) {
			j++
		}
		if j > i {
			sep += name[i:j]
			i = j
			continue
		}
		for j = i + 1; j < len(name) && !isSep(name[j]) &&
			!('A' <= name[j] && name[j] <= 'Z' && 'a' <= name[j-1] && name[j-1] <= 'z'); j++ {
		}
		seg := name[i:j]
		if len(segs) == 0 {
			seg = sep + seg
		} else {
			seps = append(seps, sep)
		}
		segs = append(segs, seg)
		sep, i = "", j
	}
	if len(segs) == 0 {
		return []string{name}, nil
	}
	segs[len(segs)-1] += sep
	return segs, seps
}

// joinName joins segs with seps (len(seps) == len(segs)-1; missing ones are "_").
func joinName(segs, seps []string) string {
	var b strings.Builder
	for i, s := range segs {
		if i > 0 {
			if i-1 < len(seps) {
				b.WriteString(seps[i-1])
			} else {
				b.WriteByte('_')
			}
		}
		b.WriteString(s)
	}
	return b.String()
}

// splitmix returns a well-mixed 64-bit hash of x.
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// rareWord returns the generated rare term of rank k: the front half of one real word and
// the back half of another, chosen by a hash of k, so terms look like the text around
// them ("registription") and the same rank always names the same term.
func (s *Source) rareWord(k uint64) string {
	h := splitmix(k ^ 0x5ca1eb0c4)
	a := s.distinct[h%uint64(len(s.distinct))]
	b := s.distinct[(h>>32)%uint64(len(s.distinct))]
	w := a[:(len(a)+1)/2] + b[len(b)/2:]
	if len(w) < 5 { // short halves make common-looking words; lengthen them
		w += s.distinct[(h>>16)%uint64(len(s.distinct))][:2]
	}
	return w
}
