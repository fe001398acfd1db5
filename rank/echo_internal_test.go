package rank

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// echoesByScan is findEchoes' first form, the reference: for each path term, a scan
// of every query term for the same id outside the paths (quadratic in a long path).
func echoesByScan(s *scratch) []uint32 {
	paths := s.steps.paths[:s.steps.npath]
	var echo []uint32
	for i, id := range s.ids {
		if id == noTerm || s.an.parent[i] >= 0 || !inRanges(paths, i) || slices.Contains(echo, id) {
			continue
		}
		for j, o := range s.ids {
			if o == id && !inRanges(paths, j) {
				if len(echo) < maxEcho {
					echo = append(echo, id)
				}
				break
			}
		}
	}
	return echo
}

// TestFindEchoesMatchesScan checks findEchoes, which sorts the terms outside the paths
// once, against the scan it replaced, on random queries of words, paths and URLs
// (more than maxEcho echoes in some), so that the quadratic scan's removal changed no
// ranking.
func TestFindEchoesMatchesScan(t *testing.T) {
	ix := NewIndex([]Doc{
		{Name: "create_branch", Description: "Create a branch in a repository."},
		{Name: "get_pull_request", Description: "Get a pull request of a project pipeline."},
		{Name: "read_file", Description: "Read a file under src or docs, drafts and content."},
	})
	words := strings.Fields("branch pull request pipeline file src docs drafts content repository project create get read the a of under")
	rng := rand.New(rand.NewPCG(1, 2))
	word := func() string { return words[rng.IntN(len(words))] }
	withEchoes := 0
	for trial := range 3000 {
		var b strings.Builder
		for range 1 + rng.IntN(40) {
			switch rng.IntN(4) {
			case 0: // a path of 2 to 20 words
				b.WriteString(word())
				for range 1 + rng.IntN(19) {
					b.WriteString("/" + word())
				}
			case 1:
				b.WriteString("https://example.com/" + word() + "/" + word())
			default:
				b.WriteString(word())
			}
			b.WriteByte(' ')
		}
		q := b.String()
		s := ix.getScratch()
		s.queryTerms(ix, q)
		got, want := s.steps.echo[:s.steps.necho], echoesByScan(s)
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d: findEchoes %v, the scan %v", trial, got, want)
		}
		if len(got) > 0 {
			withEchoes++
		}
		ix.putScratch(s)
	}
	if withEchoes < 1000 {
		t.Fatalf("only %d of 3000 queries had an echo: the trials do not reach the rule", withEchoes)
	}
}
