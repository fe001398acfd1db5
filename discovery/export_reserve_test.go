package discovery

// ErrToolNameReserved is the cause of a reserving Discoverer's catalog_unavailable, for
// the tests of ReserveToolName.
var ErrToolNameReserved = errToolNameReserved
