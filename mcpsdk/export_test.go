package mcpsdk

import "time"

// SetDrainLimit sets how long a's connections wait at the end of input for the
// answers they owe, so that a test need not wait rpcwire.DrainLimit.
func SetDrainLimit(a *Adapter, limit time.Duration) { a.drainLimit = limit }
