// Package nexmark generates the Nexmark benchmark's events (people,
// auctions and bids of an online auction site) for streamdb's nexmark
// source connector, compatible with RisingWave's.
//
// It ports the generator of nexmark-rs (github.com/risingwavelabs/nexmark-rs
// 0.2, itself a port of Apache Beam's
// org.apache.beam.sdk.nexmark.sources.generator), which RisingWave's nexmark
// source runs, closely enough to produce the same values: each event's
// random draws come from a reimplementation of Rust rand 0.8's SmallRng
// seeded with the event's number, sampled as rand samples, with the same
// single-precision arithmetic for times and prices. The reference's own
// test vector (event 0) is reproduced exactly; the one known source of
// difference is powf, whose glibc result can differ from a correctly
// rounded one in the last place, moving a rare price by a cent.
//
// Event number n is of type Person, Auction or Bid by n mod 50 (1:3:46);
// its event time is BaseTime + n/EventRate seconds. Ids grow with the event
// number; auctions are sold by, and bids placed by, recent people, bids go
// to recent auctions, each skewed toward hot ids, sellers and channels
// (HotAuctionRatio etc.). The extra column pads events to average sizes of
// about 200, 500 and 100 bytes.
//
// A source produces one table (Config.Table) over Config.SplitNum splits,
// as RisingWave does: split i of n produces the table's offsets i, i+n, ...
// (its events numbered among events of its type) and skips other types
// without generating them, so splits run in parallel and resume from an
// offset alone. The package is pure, with no clocks or goroutines: the
// runtime paces splits with Split.Pace.
package nexmark
