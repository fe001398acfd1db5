package discovery

// MaxIDBytes is the JSON-RPC id length Discover reserves, for the tests that frame its
// pages with such an id.
const MaxIDBytes = maxIDBytes
