package tooldef

// Elements calls fn with each raw element of the JSON array b, in order; it calls none
// when b is not an array. b must be text json.Valid (or schemaguard.Canonicalize) has
// accepted, as for Members.
func Elements(b []byte, fn func(val []byte)) { elements(b, fn) }
