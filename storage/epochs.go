package storage

import (
	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/sstable"
)

// epochsProperty names the block property that records, per SST block,
// the interval of the epochs of the versions in it: a read of the
// versions written in an interval of epochs (a migration's delta) skips
// the blocks that hold none, instead of scanning every version of its
// range.
const epochsProperty = "streamdb.epochs"

// epochMapper maps a versioned key to its epoch; bare keys to nothing.
type epochMapper struct{}

// MapPointKey implements sstable.IntervalMapper.
func (epochMapper) MapPointKey(key sstable.InternalKey, _ []byte) (sstable.BlockInterval, error) {
	k := key.UserKey
	if split(k) == len(k) {
		return sstable.BlockInterval{}, nil
	}
	e := versionEpoch(k)
	return sstable.BlockInterval{Lower: e, Upper: e + 1}, nil
}

// MapRangeKeys implements sstable.IntervalMapper: the store has no range
// keys.
func (epochMapper) MapRangeKeys(sstable.Span) (sstable.BlockInterval, error) {
	return sstable.BlockInterval{}, nil
}

// epochsCollector records epochsProperty in the SSTs the store writes.
func epochsCollector() pebble.BlockPropertyCollector {
	return sstable.NewBlockIntervalCollector(epochsProperty, epochMapper{}, nil)
}

// epochsFilter keeps the blocks holding a version of an epoch in (from,
// to]; SSTs written without the property keep every block.
func epochsFilter(from, to uint64) pebble.BlockPropertyFilter {
	return sstable.NewBlockIntervalFilter(epochsProperty, from+1, to+1, nil)
}
