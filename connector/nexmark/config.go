package nexmark

import "math"

// Config describes a Nexmark source: the generator's parameters (named
// after NexmarkConfig in nexmark-rs) and how a source runs its splits.
// ParseOptions builds one from WITH options; DefaultConfig gives
// RisingWave's defaults.
type Config struct {
	// Table is the event type the source's splits produce (PersonEvent,
	// the zero value, in DefaultConfig; ParseOptions requires it).
	Table EventType
	// SplitNum is the number of splits the source runs in parallel.
	SplitNum int
	// EventNum bounds the events of all types the source generates
	// (counting those of other tables): the table holds its events
	// numbered below it. 0 means unbounded (RisingWave's default is
	// 2^64-1; an explicit 0 there means no events).
	EventNum int64
	// MaxChunkSize is the most rows a reader should emit in one chunk.
	MaxChunkSize int
	// UseRealTime paces emission by event time (see Split.Pace).
	UseRealTime bool
	// MinEventGapNs is the wall-clock gap per event when UseRealTime is
	// off; 0 means as fast as possible.
	MinEventGapNs int64
	// Seed selects the data set; 0 reproduces the reference's.
	Seed int64

	// EventRate is the number of events per second of event time.
	EventRate int64
	// BaseTime is the event time of event 0, in ms since 1970-01-01.
	BaseTime int64

	// ActivePeople is how many of the latest people bid and sell.
	ActivePeople int64
	// InFlightAuctions is how many of the latest auctions receive bids.
	InFlightAuctions int64
	// OutOfOrderGroupSize shuffles each group of that many consecutive
	// events of a Generator; 1 keeps them in order.
	OutOfOrderGroupSize int64
	// AvgPersonByteSize, AvgAuctionByteSize and AvgBidByteSize are the
	// average event sizes the extra column pads to.
	AvgPersonByteSize, AvgAuctionByteSize, AvgBidByteSize int64
	// HotSellerRatio, HotAuctionRatio, HotBidderRatio and HotChannelRatio:
	// all but 1 in that many auctions (bids) go to a hot seller (auction,
	// bidder, channel).
	HotSellerRatio, HotAuctionRatio, HotBidderRatio, HotChannelRatio int64
	// PersonProportion, AuctionProportion and BidProportion give the event
	// mix; their sum is the proportion denominator.
	PersonProportion, AuctionProportion, BidProportion int64
	// NumCategories is the number of auction categories.
	NumCategories int64
	// AuctionIDLead and PersonIDLead let bids name auctions and people
	// slightly ahead of the latest one.
	AuctionIDLead, PersonIDLead int64
	// FirstPersonID, FirstAuctionID and FirstCategoryID offset the ids.
	FirstPersonID, FirstAuctionID, FirstCategoryID int64
}

// defaultBaseTime is RisingWave's base time for table-typed nexmark
// sources: 2015-07-15 00:00:00 UTC, in milliseconds.
const defaultBaseTime = 1_436_918_400_000

// hotRatio2 is nexmark-rs's fixed HOT_*_RATIO: a hot seller, auction or
// bidder is the first of the latest block of this many ids.
const hotRatio2 = 100

// DefaultConfig returns the configuration of a RisingWave nexmark source
// with no options but its table type: nexmark-rs's defaults, event time
// starting at 2015-07-15 and advancing at 10,000 events per second.
func DefaultConfig() Config {
	return Config{
		SplitNum:            1,
		MaxChunkSize:        1024,
		MinEventGapNs:       100_000,
		EventRate:           10_000,
		BaseTime:            defaultBaseTime,
		ActivePeople:        1000,
		InFlightAuctions:    100,
		OutOfOrderGroupSize: 1,
		AvgPersonByteSize:   200,
		AvgAuctionByteSize:  500,
		AvgBidByteSize:      100,
		HotSellerRatio:      4,
		HotAuctionRatio:     2,
		HotBidderRatio:      4,
		HotChannelRatio:     2,
		PersonProportion:    1,
		AuctionProportion:   3,
		BidProportion:       46,
		NumCategories:       5,
		AuctionIDLead:       10,
		PersonIDLead:        10,
		FirstPersonID:       1000,
		FirstAuctionID:      1000,
		FirstCategoryID:     10,
	}
}

// denominator is the proportion denominator: events per round of the mix.
func (c *Config) denominator() int64 {
	return c.PersonProportion + c.AuctionProportion + c.BidProportion
}

// eventType is the type of event number n.
func (c *Config) eventType(n int64) EventType {
	switch rem := n % c.denominator(); {
	case rem < c.PersonProportion:
		return PersonEvent
	case rem < c.PersonProportion+c.AuctionProportion:
		return AuctionEvent
	}
	return BidEvent
}

// globalOffset maps the offset-th event of type t to its number among
// events of all types, as nexmark-rs's type-filtered generator does.
func (c *Config) globalOffset(t EventType, offset int64) int64 {
	before, per := c.typeSlot(t)
	return offset/per*c.denominator() + before + offset%per
}

// typeSlot returns where the events of type t sit in each round of the
// mix: after before events of other types, per of them.
func (c *Config) typeSlot(t EventType) (before, per int64) {
	switch t {
	case PersonEvent:
		return 0, c.PersonProportion
	case AuctionEvent:
		return c.PersonProportion, c.AuctionProportion
	}
	return c.PersonProportion + c.AuctionProportion, c.BidProportion
}

// Rows is the number of rows of the table c.Table among the first
// c.EventNum events (0: unbounded, -1).
func (c *Config) Rows() int64 {
	if c.EventNum <= 0 {
		return -1
	}
	before, per := c.typeSlot(c.Table)
	return c.EventNum/c.denominator()*per + min(max(c.EventNum%c.denominator()-before, 0), per)
}

// EventNumber is the number, among events of all types, of the row at
// offset of the table c.Table: a split standing at offset has produced the
// table's rows of every event numbered below it (of those it owns).
func (c *Config) EventNumber(offset int64) int64 { return c.globalOffset(c.Table, offset) }

// interEventDelay is the event-time gap between events in microseconds,
// in single precision as the reference computes it.
func (c *Config) interEventDelay() float32 { return float32(1e6) / float32(c.EventRate) }

// timestamp returns the event time of event number n in milliseconds,
// with the reference's single-precision arithmetic (so, like RisingWave,
// times step unevenly once n passes 2^24).
func timestamp(base int64, delay float32, n int64) int64 {
	us := float32(float32(n) * delay)
	return base + int64(math.Round(float64(float32(us/1000))))
}
