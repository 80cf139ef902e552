package sqllogic

import "fmt"

// labels remembers, per query label, the result hash of the first query
// that passed with it, so that later queries with the same label must
// return the same results.
type labels map[string]labelSeen

type labelSeen struct {
	hash  string
	where string // file:line of the query that set the label
}

// check reports an error if label was set to a hash other than hash;
// otherwise it records hash for label (where identifies the query).
func (l labels) check(label, hash, where string) error {
	if label == "" {
		return nil
	}
	if seen, ok := l[label]; ok {
		if seen.hash != hash {
			return fmt.Errorf("results differ from those of %s, which has the same label %s", seen.where, label)
		}
		return nil
	}
	l[label] = labelSeen{hash: hash, where: where}
	return nil
}
