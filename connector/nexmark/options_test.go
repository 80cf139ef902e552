package nexmark

import (
	"errors"
	"testing"

	"github.com/streamdb/streamdb/pgerror"
)

func TestParseOptions(t *testing.T) {
	for _, c := range []struct {
		name string
		opts map[string]string
		edit func(*Config) // applied to DefaultConfig for the expected result
	}{
		{"bid", map[string]string{"connector": "nexmark", "nexmark.table.type": "Bid"},
			func(c *Config) { c.Table = BidEvent }},
		{"case and spaces", map[string]string{"nexmark.table.type": " aUCTION "},
			func(c *Config) { c.Table = AuctionEvent }},
		{"risingwave options", map[string]string{
			"nexmark.table.type": "person", "nexmark.split.num": "4", "nexmark.event.num": "1000",
			"nexmark.max.chunk.size": "256", "nexmark.use.real.time": "TRUE", "nexmark.min.event.gap.in.ns": "0",
			"nexmark.first.event.rate": "5000", "nexmark.hot.auction.ratio": "3", "nexmark.base.time": "0",
		}, func(c *Config) {
			c.Table, c.SplitNum, c.EventNum, c.MaxChunkSize, c.UseRealTime = PersonEvent, 4, 1000, 256, true
			c.MinEventGapNs, c.EventRate, c.HotAuctionRatio, c.BaseTime = 0, 5000, 3, 0
		}},
		{"ours", map[string]string{"nexmark.table.type": "Bid", "nexmark.seed": "-42", "nexmark.event.rate": "1000000"},
			func(c *Config) { c.Table, c.Seed, c.EventRate = BidEvent, -42, 1_000_000 }},
	} {
		got, err := ParseOptions(c.opts)
		want := DefaultConfig()
		c.edit(&want)
		if err != nil || got != want {
			t.Errorf("%s: got %+v, %v; want %+v", c.name, got, err, want)
		}
	}
}

func TestParseOptionsErrors(t *testing.T) {
	for _, c := range []struct {
		opts map[string]string
		code string
	}{
		{map[string]string{"connector": "nexmark"}, pgerror.CodeInvalidParameterValue},
		{map[string]string{"nexmark.table.type": "Seller"}, pgerror.CodeInvalidParameterValue},
		{map[string]string{"nexmark.table.type": "Bid", "nexmark.split.num": "0"}, pgerror.CodeInvalidParameterValue},
		{map[string]string{"nexmark.table.type": "Bid", "nexmark.event.num": "-1"}, pgerror.CodeInvalidParameterValue},
		{map[string]string{"nexmark.table.type": "Bid", "nexmark.event.num": "lots"}, pgerror.CodeInvalidParameterValue},
		{map[string]string{"nexmark.table.type": "Bid", "nexmark.use.real.time": "yes"}, pgerror.CodeInvalidParameterValue},
		{map[string]string{"nexmark.table.type": "Bid", "nexmark.hot.bidder.ratio": "0"}, pgerror.CodeInvalidParameterValue},
		{map[string]string{"nexmark.table.type": "Bid", "nexmark.no.such": "1"}, pgerror.CodeInvalidParameterValue},
		{map[string]string{"nexmark.table.type": "Bid", "nexmark.threads": "2"}, pgerror.CodeFeatureNotSupported},
		{map[string]string{"nexmark.table.type": "Bid", "nexmark.us.states": "ca"}, pgerror.CodeFeatureNotSupported},
	} {
		_, err := ParseOptions(c.opts)
		var pe *pgerror.Error
		if !errors.As(err, &pe) || pe.Code != c.code {
			t.Errorf("%v: error %v, want SQLSTATE %s", c.opts, err, c.code)
		}
	}
}
