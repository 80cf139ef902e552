package nexmark

import (
	"strings"
	"testing"
)

// TestReferenceEvent checks event 0 against nexmark-rs's own unit test
// (event.rs, test_event): the port draws exactly what the reference draws.
func TestReferenceEvent(t *testing.T) {
	cfg := DefaultConfig()
	got := NewGenerator(cfg).Event(0)
	want := Person{
		ID:           1000,
		Name:         "vicky noris",
		EmailAddress: "yplkvgz@qbxfg.com",
		CreditCard:   "7878 5821 1864 2539",
		City:         "cheyenne",
		State:        "az",
		DateTime:     cfg.BaseTime,
		Extra:        "lwaiyhjhrkaruidlsjilvqccyedttedeynpqmackqbwvklwuyypztnkengzgtwtjivjgrxurskpcldfohdzuwnefqymyncrksxyfaecwsbswjumzxudgoznyhakxrudomnxtmqtgshecfjgspxzpludz",
	}
	if got.Type != PersonEvent || got.Person != want {
		t.Fatalf("event 0 = %+v, want %+v", got, want)
	}
}

func TestDeterministic(t *testing.T) {
	for _, seed := range []int64{0, 1, -7} {
		cfg := DefaultConfig()
		cfg.Seed = seed
		a, b := NewGenerator(cfg), NewGenerator(cfg)
		// b generates in reverse order: an event depends on its number only.
		want := make([]Event, 500)
		for i := range want {
			want[i] = a.Event(int64(i))
		}
		for i := len(want) - 1; i >= 0; i-- {
			if got := b.Event(int64(i)); got != want[i] {
				t.Fatalf("seed %d event %d: %+v, want %+v", seed, i, got, want[i])
			}
		}
	}
	cfg := DefaultConfig()
	cfg.Seed = 1
	if got, ref := NewGenerator(cfg).Event(0), NewGenerator(DefaultConfig()).Event(0); got == ref {
		t.Fatal("seed 1 reproduces the reference data set")
	}
}

// events generates the first n events of cfg's single stream.
func events(cfg Config, n int) []Event {
	g := NewGenerator(cfg)
	out := make([]Event, n)
	for i := range out {
		out[i] = g.Event(int64(i))
	}
	return out
}

func TestProportions(t *testing.T) {
	var counts [3]int
	for _, e := range events(DefaultConfig(), 50_000) {
		counts[e.Type]++
	}
	if counts != [3]int{1000, 3000, 46000} {
		t.Fatalf("person, auction, bid counts = %v, want [1000 3000 46000]", counts)
	}
}

// TestHotKeys checks the skew toward hot ids and channels: a hot id is the
// first (seller) or second (bidder) of a block of 100 ids.
func TestHotKeys(t *testing.T) {
	cfg := DefaultConfig()
	var auctions, hotSellers, bids, hotAuctions, hotBidders, hotChannels int
	for _, e := range events(cfg, 100_000) {
		switch e.Type {
		case AuctionEvent:
			auctions++
			if (e.Auction.Seller-cfg.FirstPersonID)%hotRatio2 == 0 {
				hotSellers++
			}
		case BidEvent:
			bids++
			b := e.Bid
			if (b.Auction-cfg.FirstAuctionID)%hotRatio2 == 0 {
				hotAuctions++
			}
			if (b.Bidder-cfg.FirstPersonID)%hotRatio2 == 1 {
				hotBidders++
			}
			if !strings.HasPrefix(b.Channel, "channel-") {
				hotChannels++
			}
		}
	}
	for _, c := range []struct {
		name      string
		hits, all int
		ratio     int64
	}{
		{"hot sellers", hotSellers, auctions, cfg.HotSellerRatio},
		{"hot auctions", hotAuctions, bids, cfg.HotAuctionRatio},
		{"hot bidders", hotBidders, bids, cfg.HotBidderRatio},
		{"hot channels", hotChannels, bids, cfg.HotChannelRatio},
	} {
		// All but 1 in ratio go hot; the cold rest hit hot ids rarely.
		want := 1 - 1/float64(c.ratio)
		if got := float64(c.hits) / float64(c.all); got < want-0.02 || got > want+0.04 {
			t.Errorf("%s: %.3f of events, want about %.3f", c.name, got, want)
		}
	}
}

func TestSizes(t *testing.T) {
	var sum, count [3]float64
	for _, e := range events(DefaultConfig(), 100_000) {
		var size int
		switch e.Type {
		case PersonEvent:
			p := e.Person
			size = 8 + len(p.Name) + len(p.EmailAddress) + len(p.CreditCard) + len(p.City) + len(p.State) + len(p.Extra)
		case AuctionEvent:
			a := e.Auction
			size = 8 + len(a.ItemName) + len(a.Description) + 5*8 + len(a.Extra)
		case BidEvent:
			size = 4*8 + len(e.Bid.Extra)
		}
		sum[e.Type] += float64(size)
		count[e.Type]++
	}
	for typ, want := range [3]float64{200, 500, 100} {
		if got := sum[typ] / count[typ]; got < want*0.97 || got > want*1.03 {
			t.Errorf("%v: average size %.1f, want about %.0f", EventType(typ), got, want)
		}
	}
}

func TestFields(t *testing.T) {
	cfg := DefaultConfig()
	for i, e := range events(cfg, 20_000) {
		switch e.Type {
		case PersonEvent:
			p := e.Person
			if len(p.EmailAddress) != 17 || len(p.CreditCard) != 19 || p.ID != cfg.FirstPersonID+int64(i)/50 {
				t.Fatalf("event %d: bad person %+v", i, p)
			}
		case AuctionEvent:
			a := e.Auction
			if len(a.ItemName) != 20 || len(a.Description) != 100 || a.Reserve < a.InitialBid || a.Expires <= a.DateTime ||
				a.Category < cfg.FirstCategoryID || a.Category >= cfg.FirstCategoryID+cfg.NumCategories ||
				a.Seller < cfg.FirstPersonID || a.Seller > cfg.FirstPersonID+int64(i)/50+cfg.PersonIDLead {
				t.Fatalf("event %d: bad auction %+v", i, a)
			}
		case BidEvent:
			b := e.Bid
			if b.Price < 100 || b.Price > 100_000_000 || !strings.HasPrefix(b.URL, "https://www.nexmark.com/") ||
				b.Auction < cfg.FirstAuctionID || b.Auction > cfg.FirstAuctionID+int64(i)/50*3+2+cfg.AuctionIDLead {
				t.Fatalf("event %d: bad bid %+v", i, b)
			}
		}
	}
}

func TestEventTime(t *testing.T) {
	cfg := DefaultConfig()
	evs := events(cfg, 10_000)
	for i := 1; i < len(evs); i++ {
		if evs[i].DateTime() < evs[i-1].DateTime() {
			t.Fatalf("event %d goes back in time", i)
		}
	}
	// 10,000 events per second: event 10 is 1 ms after event 0.
	if got := evs[9990].DateTime() - cfg.BaseTime; got != 999 {
		t.Fatalf("event 9990 at %d ms, want 999", got)
	}
}

// TestOutOfOrder checks the designed disorder: each group of n events is a
// shuffle of its event numbers, so time only goes back within a group.
func TestOutOfOrder(t *testing.T) {
	const n = 100
	cfg := DefaultConfig()
	cfg.OutOfOrderGroupSize = n
	// A slow rate gives every event its own millisecond.
	cfg.EventRate = 1000
	evs := events(cfg, 20*n)
	g := NewGenerator(cfg)
	backwards := 0
	for group := 0; group < len(evs); group += n {
		seen := make(map[int64]bool)
		for i := group; i < group+n; i++ {
			num := g.adjust(int64(i))
			if num < int64(group) || num >= int64(group+n) || seen[num] {
				t.Fatalf("offset %d maps to event %d outside its group or twice", i, num)
			}
			seen[num] = true
			if evs[i].DateTime() != g.timestamp(num) {
				t.Fatalf("offset %d: time %d, want event %d's", i, evs[i].DateTime(), num)
			}
			if i > group && evs[i].DateTime() < evs[i-1].DateTime() {
				backwards++
			}
		}
	}
	if backwards == 0 {
		t.Fatal("no event came out of order")
	}
}

func TestChannels(t *testing.T) {
	ch := channels()
	if len(ch.hotURLs) != len(hotChannels) || len(ch.names) != channelCount || ch.names[42] != "channel-42" {
		t.Fatal("malformed channel table")
	}
	withID := 0
	for i, url := range ch.coldURLs {
		if !strings.HasPrefix(url, "https://www.nexmark.com/") || !strings.Contains(url, "/item.htm?query=1") {
			t.Fatalf("channel %d: bad url %q", i, url)
		}
		if strings.Contains(url, "&channel_id=") {
			withID++
		}
	}
	// Nine in ten cold channels carry their id.
	if withID < channelCount*85/100 || withID > channelCount*95/100 {
		t.Fatalf("%d cold URLs with a channel id, want about 9000", withID)
	}
	for i := range 4 {
		if ch.coldURLs[i][:len(ch.hotURLs[i])] != ch.hotURLs[i] {
			t.Fatalf("cold channel %d does not extend hot URL %q", i, ch.hotURLs[i])
		}
	}
}
