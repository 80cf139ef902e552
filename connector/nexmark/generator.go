package nexmark

// Generator produces Nexmark events. As in the reference, an event is a
// pure function of the configuration and its number: its random draws come
// from a generator seeded with its id, and ids, prices and times derive
// from the number alone. So any events can be generated anywhere, in any
// order, and a split needs no state beyond its offset. A Generator reuses
// buffers and is not safe for concurrent use.
type Generator struct {
	cfg   Config
	delay float32 // inter-event delay in microseconds
	mix   uint64  // xored into every event's seed; 0 when Seed is 0
	rng   smallRng
	buf   []byte
}

// NewGenerator returns a generator for cfg, which must be valid (as
// DefaultConfig and ParseOptions return).
func NewGenerator(cfg Config) *Generator {
	return &Generator{cfg: cfg, delay: cfg.interEventDelay(), mix: mix64(uint64(cfg.Seed))}
}

// mix64 is SplitMix64's finalizer, a bijection with mix64(0) = 0.
func mix64(z uint64) uint64 {
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// Event returns the event at position offset of the single stream of all
// event types: event number offset, except that with OutOfOrderGroupSize
// n > 1 each group of n consecutive numbers comes in a fixed shuffled
// order, as the reference's next_adjusted_event arranges.
func (g *Generator) Event(offset int64) Event {
	n := g.adjust(offset)
	e := Event{Type: g.cfg.eventType(n)}
	switch e.Type {
	case PersonEvent:
		e.Person = g.person(n)
	case AuctionEvent:
		e.Auction = g.auction(n)
	default:
		e.Bid = g.bid(n)
	}
	return e
}

// adjust is next_adjusted_event: (o/n)*n + (o*953)%n for group size n.
func (g *Generator) adjust(offset int64) int64 {
	n := g.cfg.OutOfOrderGroupSize
	return offset/n*n + offset%n*953%n
}

// timestamp returns the event time of event number n in milliseconds.
func (g *Generator) timestamp(n int64) int64 { return timestamp(g.cfg.BaseTime, g.delay, n) }

// start seeds the event generator for event number n and empties the
// string buffer.
func (g *Generator) start(n int64) (*smallRng, []byte) {
	g.rng.seed(uint64(n) ^ g.mix)
	return &g.rng, g.buf[:0]
}

// person generates event number n as a new person.
func (g *Generator) person(n int64) Person {
	r, b := g.start(n)
	first := int(r.below32(uint32(len(firstNames))))
	last := int(r.below32(uint32(len(lastNames))))
	name := fullNames[first*len(lastNames)+last]
	b = r.appendLetters(b, 7)
	b = append(b, '@')
	b = r.appendLetters(b, 5)
	b = append(b, ".com"...)
	emailEnd := len(b)
	b = r.appendCreditCard(b)
	cardEnd := len(b)
	city := usCities[r.below32(uint32(len(usCities)))]
	state := usStates[r.below32(uint32(len(usStates)))]
	size := 8 + len(name) + cardEnd + len(city) + len(state)
	b = r.appendExtra(b, int64(size), g.cfg.AvgPersonByteSize)
	s := g.keep(b)
	return Person{
		ID:           g.lastPersonID(n) + g.cfg.FirstPersonID,
		Name:         name,
		EmailAddress: s[:emailEnd],
		CreditCard:   s[emailEnd:cardEnd],
		City:         city,
		State:        state,
		DateTime:     g.timestamp(n),
		Extra:        s[cardEnd:],
	}
}

// auction generates event number n as a new auction.
func (g *Generator) auction(n int64) Auction {
	r, b := g.start(n)
	b = r.appendLetters(b, 20)
	nameEnd := len(b)
	b = r.appendLetters(b, 100)
	descEnd := len(b)
	initialBid := r.price()
	reserve := initialBid + r.price()
	now := g.timestamp(n)
	expires := now + g.auctionLength(n, now)
	var seller int64
	if r.below64(uint64(g.cfg.HotSellerRatio)) > 0 {
		seller = g.lastPersonID(n) / hotRatio2 * hotRatio2
	} else {
		seller = g.nextPersonID(n)
	}
	category := g.cfg.FirstCategoryID + int64(r.below64(uint64(g.cfg.NumCategories)))
	b = r.appendExtra(b, int64(8+descEnd+5*8), g.cfg.AvgAuctionByteSize)
	s := g.keep(b)
	return Auction{
		ID:          g.lastAuctionID(n) + g.cfg.FirstAuctionID,
		ItemName:    s[:nameEnd],
		Description: s[nameEnd:descEnd],
		InitialBid:  initialBid,
		Reserve:     reserve,
		DateTime:    now,
		Expires:     expires,
		Seller:      seller + g.cfg.FirstPersonID,
		Category:    category,
		Extra:       s[descEnd:],
	}
}

// bid generates event number n as a new bid.
func (g *Generator) bid(n int64) Bid {
	r, b := g.start(n)
	var auction, bidder int64
	if r.below64(uint64(g.cfg.HotAuctionRatio)) > 0 {
		auction = g.lastAuctionID(n) / hotRatio2 * hotRatio2
	} else {
		auction = g.nextAuctionID(n)
	}
	if r.below64(uint64(g.cfg.HotBidderRatio)) > 0 {
		// The second of the block, so hot bidders are not hot sellers.
		bidder = g.lastPersonID(n)/hotRatio2*hotRatio2 + 1
	} else {
		bidder = g.nextPersonID(n)
	}
	price := r.price()
	ch := channels()
	var channel, url string
	if r.below64(uint64(g.cfg.HotChannelRatio)) > 0 {
		i := r.below64(uint64(len(hotChannels)))
		channel, url = hotChannels[i], ch.hotURLs[i]
	} else {
		i := r.below32(channelCount)
		channel, url = ch.names[i], ch.coldURLs[i]
	}
	b = r.appendExtra(b, 4*8, g.cfg.AvgBidByteSize)
	return Bid{
		Auction:  auction + g.cfg.FirstAuctionID,
		Bidder:   bidder + g.cfg.FirstPersonID,
		Price:    price,
		Channel:  channel,
		URL:      url,
		DateTime: g.timestamp(n),
		Extra:    g.keep(b),
	}
}

// keep turns the event's generated text into one string, which the
// event's string fields slice, and keeps the buffer for the next event.
func (g *Generator) keep(b []byte) string {
	g.buf = b
	return string(b)
}

// auctionLength is the reference's next_length: an auction lasts on
// average until about InFlightAuctions more auctions have started.
func (g *Generator) auctionLength(n, now int64) int64 {
	c := &g.cfg
	eventsForAuctions := c.InFlightAuctions * c.denominator() / c.AuctionProportion
	horizon := g.timestamp(n+eventsForAuctions) - now
	return 1 + int64(g.rng.below64(uint64(max(2*horizon, 1))))
}

// lastPersonID is the base-0 id of the latest person at event n (n's own
// when n is a person).
func (g *Generator) lastPersonID(n int64) int64 {
	c := &g.cfg
	return n/c.denominator()*c.PersonProportion + min(n%c.denominator(), c.PersonProportion-1)
}

// nextPersonID picks a base-0 person id among the ActivePeople latest,
// or slightly ahead of them.
func (g *Generator) nextPersonID(n int64) int64 {
	people := g.lastPersonID(n) + 1
	active := min(people, g.cfg.ActivePeople)
	return people - active + int64(g.rng.below64(uint64(active+g.cfg.PersonIDLead)))
}

// lastAuctionID is the base-0 id of the latest auction at event n (n's
// own when n is an auction).
func (g *Generator) lastAuctionID(n int64) int64 {
	c := &g.cfg
	epoch, offset := n/c.denominator(), n%c.denominator()
	switch {
	case offset < c.PersonProportion:
		epoch--
		offset = c.AuctionProportion - 1
	case offset >= c.PersonProportion+c.AuctionProportion:
		offset = c.AuctionProportion - 1
	default:
		offset -= c.PersonProportion
	}
	return epoch*c.AuctionProportion + offset
}

// nextAuctionID picks a base-0 auction id among the InFlightAuctions
// latest, or slightly ahead of them.
func (g *Generator) nextAuctionID(n int64) int64 {
	maxID := g.lastAuctionID(n)
	minID := max(maxID-g.cfg.InFlightAuctions, 0)
	return minID + int64(g.rng.below64(uint64(maxID-minID+1+g.cfg.AuctionIDLead)))
}
