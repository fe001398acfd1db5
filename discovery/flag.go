package discovery

import (
	"log/slog"
	"os"
	"strconv"
)

// SwitchVariable is the environment variable that turns discovery on (SPEC FLAG-1).
const SwitchVariable = "DEFERRED_TOOLS_ENABLED"

// SwitchFromEnv reads the switch through lookup (nil means os.LookupEnv). Unset or empty
// means off; a value strconv.ParseBool accepts decides; any other value means off and
// logs exactly one warning, which names the setting and never the value (SPEC FLAG-1).
// A nil logger means slog.Default().
func SwitchFromEnv(lookup func(string) (string, bool), logger *slog.Logger) bool {
	if lookup == nil {
		lookup = os.LookupEnv
	}
	v, ok := lookup(SwitchVariable)
	if !ok || v == "" {
		return false
	}
	on, err := strconv.ParseBool(v)
	if err != nil {
		if logger == nil {
			logger = slog.Default()
		}
		logger.Warn("deferred tool discovery is off: the setting is not a boolean", "setting", SwitchVariable)
		return false
	}
	return on
}
