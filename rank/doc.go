// Package rank ranks tools (their names, titles, descriptions and parameters) by local
// lexical match against a short query, over an allowed subset only, deterministically.
//
// An [Index] is built once per catalog version with [NewIndex], or from the last
// version's with [Index.Update], which analyses only the docs that changed (a doc's
// statistics depend on that doc alone, so the others' postings are copied); [Index.Search]
// then ranks a query over the docs of an allowed [Set] (the tools a principal may see).
// There is no embedding, network or model.
//
// # What is indexed
//
// Each [Doc] has four fields: name, title, description and parameters ([ParamText] of
// the tool's input schema: property names, titles, descriptions and enum values). SPEC
// DISC-4 lists names, titles and descriptions; the descriptions of a tool's parameters
// are read as part of its descriptions (discovery.CatalogOptions.IgnoreParamText leaves
// them out). Text and queries are analysed alike: Unicode is folded (NFKD, marks
// dropped, full case folding); words split at every rune neither letter nor digit and
// at camelCase boundaries; stop words are dropped; a light stemmer folds plurals and
// verb forms; common abbreviations (PR, repo, k8s...) expand to their words; runs of
// CJK become character bigrams. Beside the stems, the index holds words as written (not in
// parameters), each whole name as one term, and pairs of consecutive words of names and
// titles. A query's words add a few synonyms and phrasal verbs at half weight, so "make
// a folder" finds create_directory.
//
// # Scoring
//
// Search scores with BM25F: for each query term, its frequency in the name, title,
// description and parameters, weighted 3, 2, 1 and 0.1 and each normalised by the
// field's length against a fixed pivot (3, 5, 30 and 30 terms), is saturated (k1 = 1.2)
// and multiplied by the term's idf, ln(1 + (N - df + 0.5)/(df + 0.5)). A word as written
// weighs a tenth of its stem in a query, a pair of words half a word. N and df are the
// only statistics; the rest of a doc's score depends on that doc alone and is computed
// when the index is built.
//
// # Guarantees
//
//   - Allowed set only (SPEC DISC-5): N and df are counted over the allowed docs, at
//     query time, so a tool outside the allowed set never changes a hit or a score.
//   - Determinism (DISC-4): the same docs, query, allowed set and k give the same hits
//     and scores. Scores are summed in fixed point (2^-32), each contribution rounded
//     once, so equal scores are exactly equal; ties are broken by name, ascending byte
//     order.
//   - No match, no hit (DISC-6): a doc that matches no query term is not a hit, so a
//     query matching nothing, or made only of stop words, returns none.
//   - Exact top k: Search stops looking for new docs once the terms left cannot lift a
//     doc not yet seen into the best k (MaxScore); its hits are those of a full
//     evaluation, which a property test checks. It allocates nothing when dst has room.
//
// # Evaluating
//
// To measure a catalog and query set (Recall@1/5/10, MRR@10, nDCG@10):
//
//	go run ./rank/cmd/rankeval -catalog FILE -queries FILE [-json]
//
// With the shared data folder present, go test ./rank -run TestQuality -v measures the
// development sets against their floors, and RANK_TUNE=features go test ./rank -run
// TestTune -v turns each analysis step off in turn. TUNING.md, beside this file, records
// the data, the measured effect of every choice, what was tried and left out, and the
// quality and speed against bleve, each figure with its command.
package rank
