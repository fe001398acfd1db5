package discovery

import "github.com/deferredtools/deferredtools/schemaguard"

// AppendDigests appends to dst the digest of each tool ListTools put in r.Tools, in
// order: SHA-256 of its canonical bytes (SPEC CONTRACT-2), as the catalog version
// computed it once (a meta tool's narrowed definition, once per authorised set). A
// caller keying data by a tool's content so hashes nothing per request. For a
// ListResult not made by ListTools (its Catalog nil) it digests r.Tools.
func (r *ListResult) AppendDigests(dst [][32]byte) [][32]byte {
	switch {
	case r.Catalog == nil:
		for _, def := range r.Tools {
			dst = append(dst, schemaguard.Digest(def))
		}
	case r.set == nil: // the switch is off: the whole catalog
		for i := range r.Catalog.tools {
			dst = append(dst, r.Catalog.tools[i].digest)
		}
	default:
		for i := range r.Catalog.tools {
			if r.set.bits.Has(i) {
				dst = append(dst, r.set.tool(r.Catalog, i).digest)
			}
		}
	}
	return dst
}
