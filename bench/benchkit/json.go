package benchkit

import (
	"encoding/json"
	"fmt"
	"os"
)

// WriteJSON writes results to path as an indented JSON array ([] for
// none).
func WriteJSON[T any](path string, results []T) error {
	if results == nil {
		results = []T{}
	}
	b, err := json.MarshalIndent(results, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("write the JSON report: %w (choose another --json path)", err)
	}
	return nil
}
