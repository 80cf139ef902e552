package nexmark

import "strings"

// EventType is the kind of a Nexmark event, and so the table a split
// produces.
type EventType uint8

// The three event types, in the reference's order.
const (
	PersonEvent EventType = iota
	AuctionEvent
	BidEvent
)

var eventTypeNames = [...]string{"Person", "Auction", "Bid"}

// String returns the type's name as nexmark.table.type spells it.
func (t EventType) String() string { return eventTypeNames[t] }

// parseEventType reads a nexmark.table.type value, ignoring case.
func parseEventType(s string) (EventType, bool) {
	for i, name := range eventTypeNames {
		if strings.EqualFold(s, name) {
			return EventType(i), true
		}
	}
	return 0, false
}

// Person is a person who sells or bids. DateTime is in milliseconds since
// 1970-01-01, as in the reference.
type Person struct {
	ID           int64
	Name         string
	EmailAddress string
	CreditCard   string
	City         string
	State        string
	DateTime     int64
	Extra        string
}

// Auction is an item put up for auction. DateTime and Expires are in
// milliseconds since 1970-01-01.
type Auction struct {
	ID          int64
	ItemName    string
	Description string
	InitialBid  int64
	Reserve     int64
	DateTime    int64
	Expires     int64
	Seller      int64
	Category    int64
	Extra       string
}

// Bid is a bid on an auction. DateTime is in milliseconds since 1970-01-01.
type Bid struct {
	Auction  int64
	Bidder   int64
	Price    int64
	Channel  string
	URL      string
	DateTime int64
	Extra    string
}

// Event is one Nexmark event: Type says which of Person, Auction and Bid
// holds it.
type Event struct {
	Type    EventType
	Person  Person
	Auction Auction
	Bid     Bid
}

// DateTime returns the event's time in milliseconds since 1970-01-01.
func (e *Event) DateTime() int64 {
	switch e.Type {
	case PersonEvent:
		return e.Person.DateTime
	case AuctionEvent:
		return e.Auction.DateTime
	}
	return e.Bid.DateTime
}
