package nexmark

import (
	"slices"
	"strings"

	"github.com/streamdb/streamdb/types"
)

// Column is a column of a Nexmark table.
type Column struct {
	Name string
	Type types.T
}

// schemas are the columns of RisingWave's nexmark tables, per event type.
var schemas = [...][]Column{
	PersonEvent: {
		{"id", types.TInt8},
		{"name", types.TVarchar},
		{"email_address", types.TVarchar},
		{"credit_card", types.TVarchar},
		{"city", types.TVarchar},
		{"state", types.TVarchar},
		{"date_time", types.TTimestamp},
		{"extra", types.TVarchar},
	},
	AuctionEvent: {
		{"id", types.TInt8},
		{"item_name", types.TVarchar},
		{"description", types.TVarchar},
		{"initial_bid", types.TInt8},
		{"reserve", types.TInt8},
		{"date_time", types.TTimestamp},
		{"expires", types.TTimestamp},
		{"seller", types.TInt8},
		{"category", types.TInt8},
		{"extra", types.TVarchar},
	},
	BidEvent: {
		{"auction", types.TInt8},
		{"bidder", types.TInt8},
		{"price", types.TInt8},
		{"channel", types.TVarchar},
		{"url", types.TVarchar},
		{"date_time", types.TTimestamp},
		{"extra", types.TVarchar},
	},
}

// Schema returns the columns of the table of event type t, as RisingWave's
// nexmark source declares them.
func Schema(t EventType) []Column { return slices.Clone(schemas[t]) }

// ColumnDefs renders the columns of the table of event type t as the
// column list of a CREATE statement: "auction bigint, bidder bigint, ...".
func ColumnDefs(t EventType) string {
	defs := make([]string, len(schemas[t]))
	for i, c := range schemas[t] {
		defs[i] = c.Name + " " + c.Type.String()
	}
	return strings.Join(defs, ", ")
}

// millis converts an event time in milliseconds since 1970 to a timestamp
// datum.
func millis(ms int64) types.Datum { return types.NewTimestamp(ms*1000 + types.UnixEpochTimestamp) }

// fillRow writes the person as a row of the Person table.
func (p *Person) fillRow(row []types.Datum) {
	row[0] = types.NewInt(p.ID)
	row[1] = types.NewString(p.Name)
	row[2] = types.NewString(p.EmailAddress)
	row[3] = types.NewString(p.CreditCard)
	row[4] = types.NewString(p.City)
	row[5] = types.NewString(p.State)
	row[6] = millis(p.DateTime)
	row[7] = types.NewString(p.Extra)
}

// fillRow writes the auction as a row of the Auction table.
func (a *Auction) fillRow(row []types.Datum) {
	row[0] = types.NewInt(a.ID)
	row[1] = types.NewString(a.ItemName)
	row[2] = types.NewString(a.Description)
	row[3] = types.NewInt(a.InitialBid)
	row[4] = types.NewInt(a.Reserve)
	row[5] = millis(a.DateTime)
	row[6] = millis(a.Expires)
	row[7] = types.NewInt(a.Seller)
	row[8] = types.NewInt(a.Category)
	row[9] = types.NewString(a.Extra)
}

// fillRow writes the bid as a row of the Bid table.
func (b *Bid) fillRow(row []types.Datum) {
	row[0] = types.NewInt(b.Auction)
	row[1] = types.NewInt(b.Bidder)
	row[2] = types.NewInt(b.Price)
	row[3] = types.NewString(b.Channel)
	row[4] = types.NewString(b.URL)
	row[5] = millis(b.DateTime)
	row[6] = types.NewString(b.Extra)
}
