package discovery

import "time"

// SetNow sets the clock a Discoverer built from o reads the first page's issue time
// from (the unexported test seam Options.now).
func SetNow(o *Options, now func() time.Time) { o.now = now }
