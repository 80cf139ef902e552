package nexmark

import (
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/streamdb/streamdb/pgerror"
)

// intOption is an integer WITH option: its accepted range and the field
// it sets.
type intOption struct {
	min, max int64
	set      func(*Config, int64)
}

// intOptions are the integer options, RisingWave's nexmark.* names plus
// ours (nexmark.seed, nexmark.event.rate). Bounds keep the arithmetic of
// ids and times far from overflow.
var intOptions = map[string]intOption{
	"nexmark.split.num":               {1, 1 << 20, func(c *Config, v int64) { c.SplitNum = int(v) }},
	"nexmark.event.num":               {0, math.MaxInt64, func(c *Config, v int64) { c.EventNum = v }},
	"nexmark.max.chunk.size":          {1, 1 << 20, func(c *Config, v int64) { c.MaxChunkSize = int(v) }},
	"nexmark.min.event.gap.in.ns":     {0, 1e9, func(c *Config, v int64) { c.MinEventGapNs = v }},
	"nexmark.seed":                    {math.MinInt64, math.MaxInt64, func(c *Config, v int64) { c.Seed = v }},
	"nexmark.event.rate":              {1, 1e12, func(c *Config, v int64) { c.EventRate = v }},
	"nexmark.first.event.rate":        {1, 1e12, func(c *Config, v int64) { c.EventRate = v }},
	"nexmark.base.time":               {0, 1e13, func(c *Config, v int64) { c.BaseTime = v }},
	"nexmark.active.people":           {1, 1e12, func(c *Config, v int64) { c.ActivePeople = v }},
	"nexmark.in.flight.auctions":      {0, 1e12, func(c *Config, v int64) { c.InFlightAuctions = v }},
	"nexmark.out.of.order.group.size": {1, 1e12, func(c *Config, v int64) { c.OutOfOrderGroupSize = v }},
	"nexmark.avg.person.byte.size":    {0, 1 << 24, func(c *Config, v int64) { c.AvgPersonByteSize = v }},
	"nexmark.avg.auction.byte.size":   {0, 1 << 24, func(c *Config, v int64) { c.AvgAuctionByteSize = v }},
	"nexmark.avg.bid.byte.size":       {0, 1 << 24, func(c *Config, v int64) { c.AvgBidByteSize = v }},
	"nexmark.hot.seller.ratio":        {1, 1e9, func(c *Config, v int64) { c.HotSellerRatio = v }},
	"nexmark.hot.auction.ratio":       {1, 1e9, func(c *Config, v int64) { c.HotAuctionRatio = v }},
	"nexmark.hot.bidder.ratio":        {1, 1e9, func(c *Config, v int64) { c.HotBidderRatio = v }},
	"nexmark.hot.channel.ratio":       {1, 1e9, func(c *Config, v int64) { c.HotChannelRatio = v }},
	"nexmark.person.proportion":       {1, 1e6, func(c *Config, v int64) { c.PersonProportion = v }},
	"nexmark.auction.proportion":      {1, 1e6, func(c *Config, v int64) { c.AuctionProportion = v }},
	"nexmark.bid.proportion":          {1, 1e6, func(c *Config, v int64) { c.BidProportion = v }},
	"nexmark.num.categories":          {1, 1e9, func(c *Config, v int64) { c.NumCategories = v }},
	"nexmark.auction.id.lead":         {0, 1e9, func(c *Config, v int64) { c.AuctionIDLead = v }},
	"nexmark.person.id.lead":          {0, 1e9, func(c *Config, v int64) { c.PersonIDLead = v }},
	"nexmark.first.person.id":         {0, 1e15, func(c *Config, v int64) { c.FirstPersonID = v }},
	"nexmark.first.auction.id":        {0, 1e15, func(c *Config, v int64) { c.FirstAuctionID = v }},
	"nexmark.first.category.id":       {0, 1e15, func(c *Config, v int64) { c.FirstCategoryID = v }},
}

// unsupportedOptions are RisingWave nexmark options we do not implement:
// the vocabularies, ids shifted apart from event numbers, rate shapes
// (which RisingWave itself never applies: it sets both rates from
// nexmark.first.event.rate) and parallel generator timelines.
var unsupportedOptions = []string{
	"nexmark.first.event.id", "nexmark.first.event.number",
	"nexmark.us.states", "nexmark.us.cities", "nexmark.first.names", "nexmark.last.names",
	"nexmark.rate.shape", "nexmark.rate.period", "nexmark.sine.approx.steps",
	"nexmark.next.event.rate", "nexmark.events.per.sec", "nexmark.us.per.unit", "nexmark.threads",
	"nexmark.hot.seller.ratio.2", "nexmark.hot.auction.ratio.2", "nexmark.hot.bidder.ratio.2",
}

// ParseOptions builds a Config from a nexmark source's WITH options.
// Options outside the nexmark.* namespace (connector, ...) are ignored;
// nexmark.table.type (Person, Auction or Bid, in any case) is required,
// since streamdb has no struct type for RisingWave's combined event table.
// Malformed or unknown options are errors with SQLSTATE 22023, RisingWave
// options streamdb does not implement 0A000.
func ParseOptions(opts map[string]string) (Config, error) {
	cfg := DefaultConfig()
	haveTable := false
	for _, key := range slices.Sorted(maps.Keys(opts)) {
		if !strings.HasPrefix(key, "nexmark.") {
			continue
		}
		val := strings.TrimSpace(opts[key])
		switch key {
		case "nexmark.table.type":
			t, ok := parseEventType(val)
			if !ok {
				return Config{}, invalidValue(key, val, "Person, Auction or Bid")
			}
			cfg.Table, haveTable = t, true
		case "nexmark.use.real.time":
			switch {
			case strings.EqualFold(val, "true"):
				cfg.UseRealTime = true
			case strings.EqualFold(val, "false"):
				cfg.UseRealTime = false
			default:
				return Config{}, invalidValue(key, val, "true or false")
			}
		default:
			if err := setInt(&cfg, key, val); err != nil {
				return Config{}, err
			}
		}
	}
	if !haveTable {
		return Config{}, pgerror.New(pgerror.CodeInvalidParameterValue,
			"nexmark source requires option nexmark.table.type (Person, Auction or Bid)")
	}
	return cfg, nil
}

// setInt applies the integer option key, or reports it unknown.
func setInt(cfg *Config, key, val string) error {
	o, ok := intOptions[key]
	if !ok {
		if slices.Contains(unsupportedOptions, key) {
			return pgerror.New(pgerror.CodeFeatureNotSupported, "nexmark option %s is not supported", key)
		}
		return pgerror.New(pgerror.CodeInvalidParameterValue, "unrecognized nexmark option %s", key)
	}
	v, err := strconv.ParseInt(val, 10, 64)
	if err != nil || v < o.min || v > o.max {
		return invalidValue(key, val, "an integer from "+strconv.FormatInt(o.min, 10)+" to "+strconv.FormatInt(o.max, 10))
	}
	o.set(cfg, v)
	return nil
}

// invalidValue is the error for a malformed option value.
func invalidValue(key, val, want string) error {
	return pgerror.New(pgerror.CodeInvalidParameterValue, "invalid value for option %s: %q (expected %s)", key, val, want)
}
