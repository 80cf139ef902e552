package tpch

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// Value domains of the specification (§4.2.2.13 and §4.2.3).
var (
	regions = []string{"AFRICA", "AMERICA", "ASIA", "EUROPE", "MIDDLE EAST"}
	nations = []struct {
		name   string
		region int
	}{
		{"ALGERIA", 0}, {"ARGENTINA", 1}, {"BRAZIL", 1}, {"CANADA", 1}, {"EGYPT", 4},
		{"ETHIOPIA", 0}, {"FRANCE", 3}, {"GERMANY", 3}, {"INDIA", 2}, {"INDONESIA", 2},
		{"IRAN", 4}, {"IRAQ", 4}, {"JAPAN", 2}, {"JORDAN", 4}, {"KENYA", 0},
		{"MOROCCO", 0}, {"MOZAMBIQUE", 0}, {"PERU", 1}, {"CHINA", 2}, {"ROMANIA", 3},
		{"SAUDI ARABIA", 4}, {"VIETNAM", 2}, {"RUSSIA", 3}, {"UNITED KINGDOM", 3}, {"UNITED STATES", 1},
	}
	colors = []string{"almond", "antique", "aquamarine", "azure", "beige", "bisque", "black", "blanched",
		"blue", "blush", "brown", "burlywood", "burnished", "chartreuse", "chiffon", "chocolate", "coral",
		"cornflower", "cornsilk", "cream", "cyan", "dark", "deep", "dim", "dodger", "drab", "firebrick",
		"floral", "forest", "frosted", "gainsboro", "ghost", "goldenrod", "green", "grey", "honeydew",
		"hot", "indian", "ivory", "khaki", "lace", "lavender", "lawn", "lemon", "light", "lime", "linen",
		"magenta", "maroon", "medium", "metallic", "midnight", "mint", "misty", "moccasin", "navajo",
		"navy", "olive", "orange", "orchid", "pale", "papaya", "peach", "peru", "pink", "plum", "powder",
		"puff", "purple", "red", "rose", "rosy", "royal", "saddle", "salmon", "sandy", "seashell", "sienna",
		"sky", "slate", "smoke", "snow", "spring", "steel", "tan", "thistle", "tomato", "turquoise",
		"violet", "wheat", "white", "yellow"}
	typeWords = [3][]string{
		{"STANDARD", "SMALL", "MEDIUM", "LARGE", "ECONOMY", "PROMO"},
		{"ANODIZED", "BURNISHED", "PLATED", "POLISHED", "BRUSHED"},
		{"TIN", "NICKEL", "BRASS", "STEEL", "COPPER"},
	}
	containerWords = [2][]string{{"SM", "LG", "MED", "JUMBO", "WRAP"}, {"CASE", "BOX", "BAG", "JAR", "PKG", "PACK", "CAN", "DRUM"}}
	segments       = []string{"AUTOMOBILE", "BUILDING", "FURNITURE", "MACHINERY", "HOUSEHOLD"}
	priorities     = []string{"1-URGENT", "2-HIGH", "3-MEDIUM", "4-NOT SPECIFIED", "5-LOW"}
	instructions   = []string{"DELIVER IN PERSON", "COLLECT COD", "NONE", "TAKE BACK RETURN"}
	shipModes      = []string{"REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"}
	// words fill comments; some of the queries look for these.
	words = []string{"furiously", "carefully", "quickly", "blithely", "slyly", "regular", "final", "express",
		"pending", "ironic", "special", "requests", "deposits", "accounts", "packages", "theodolites",
		"pinto", "beans", "foxes", "ideas", "instructions", "dependencies", "excuses", "platelets",
		"asymptotes", "courts", "dolphins", "multipliers", "sauternes", "warthogs", "frets", "dinos",
		"attainments", "somas", "Tiresias", "patterns", "forges", "braids", "hockey", "players"}
)

// Dates of the specification: orders from startDate to endDate minus 151
// days; currentDate splits returned and open lines.
var (
	startDate   = time.Date(1992, 1, 1, 0, 0, 0, 0, time.UTC)
	endDate     = time.Date(1998, 12, 31, 0, 0, 0, 0, time.UTC)
	currentDate = time.Date(1995, 6, 17, 0, 0, 0, 0, time.UTC)
)

// Scale is the number of rows of the scaled tables at scale factor sf.
type Scale struct {
	Suppliers, Parts, Customers, Orders int
}

// ScaleOf returns the table sizes at scale factor sf (at least one row of
// each).
func ScaleOf(sf float64) Scale {
	n := func(base float64) int { return max(1, int(base*sf)) }
	return Scale{Suppliers: n(10_000), Parts: n(200_000), Customers: n(150_000), Orders: n(1_500_000)}
}

// Generator makes TPC-H rows as the text lines of COPY ... FROM STDIN
// (tab-separated), deterministically for its seed.
type Generator struct {
	Scale Scale
	rng   *rand.Rand
}

// NewGenerator returns a generator of scale factor sf.
func NewGenerator(sf float64, seed uint64) *Generator {
	return &Generator{Scale: ScaleOf(sf), rng: rand.New(rand.NewPCG(seed, 0x7c9e))}
}

func (g *Generator) pick(list []string) string { return list[g.rng.IntN(len(list))] }

func (g *Generator) between(lo, hi int) int { return lo + g.rng.IntN(hi-lo+1) }

// comment returns a few words, between min and max characters long.
func (g *Generator) comment(minLen, maxLen int) string {
	var b strings.Builder
	target := g.between(minLen, maxLen)
	for b.Len() < target {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(g.pick(words))
	}
	s := b.String()
	return strings.TrimSpace(s[:min(len(s), maxLen)])
}

func (g *Generator) phone(nation int) string {
	return fmt.Sprintf("%d-%03d-%03d-%04d", nation+10, g.between(100, 999), g.between(100, 999), g.between(1000, 9999))
}

// money formats cents as a numeric(15,2) value.
func money(cents int) string {
	sign := ""
	if cents < 0 {
		sign, cents = "-", -cents
	}
	return fmt.Sprintf("%s%d.%02d", sign, cents/100, cents%100)
}

func date(t time.Time) string { return t.Format("2006-01-02") }

// retailPrice is P_RETAILPRICE of a part key, in cents (§4.2.3).
func retailPrice(partkey int) int {
	return 90000 + (partkey/10)%20001 + 100*(partkey%1000)
}

// partSupplier is the supplier of part p's i-th partsupp row (§4.2.3).
func (g *Generator) partSupplier(p, i int) int {
	s := g.Scale.Suppliers
	return (p+(i*(s/4+(p-1)/s)))%s + 1
}

// Table calls emit with each row of the named table, as a COPY text line.
// Orders and lineitem come together from Orders.
func (g *Generator) Table(name string, emit func(line string) error) error {
	row := func(fields ...any) error {
		parts := make([]string, len(fields))
		for i, f := range fields {
			parts[i] = fmt.Sprint(f)
		}
		return emit(strings.Join(parts, "\t"))
	}
	switch name {
	case "region":
		for i, r := range regions {
			if err := row(i, r, g.comment(31, 115)); err != nil {
				return err
			}
		}
	case "nation":
		for i, n := range nations {
			if err := row(i, n.name, n.region, g.comment(31, 114)); err != nil {
				return err
			}
		}
	case "supplier":
		for k := 1; k <= g.Scale.Suppliers; k++ {
			nation := g.rng.IntN(len(nations))
			comment := g.comment(25, 100)
			switch k % 200 { // the Better Business Bureau's complaints and recommendations (q16)
			case 7:
				comment = "carefully Customer final Complaints"
			case 11:
				comment = "slyly Customer ironic Recommends"
			}
			if err := row(k, fmt.Sprintf("Supplier#%09d", k), g.comment(10, 40), nation, g.phone(nation),
				money(g.between(-99999, 999999)), comment); err != nil {
				return err
			}
		}
	case "part":
		for k := 1; k <= g.Scale.Parts; k++ {
			var name []string
			for range 5 {
				name = append(name, g.pick(colors))
			}
			m := g.between(1, 5)
			typ := g.pick(typeWords[0]) + " " + g.pick(typeWords[1]) + " " + g.pick(typeWords[2])
			container := g.pick(containerWords[0]) + " " + g.pick(containerWords[1])
			if err := row(k, strings.Join(name, " "), fmt.Sprintf("Manufacturer#%d", m), fmt.Sprintf("Brand#%d%d", m, g.between(1, 5)),
				typ, g.between(1, 50), container, money(retailPrice(k)), g.comment(5, 22)); err != nil {
				return err
			}
		}
	case "partsupp":
		for p := 1; p <= g.Scale.Parts; p++ {
			for i := range 4 {
				if err := row(p, g.partSupplier(p, i), g.between(1, 9999), money(g.between(100, 100000)), g.comment(49, 198)); err != nil {
					return err
				}
			}
		}
	case "customer":
		for k := 1; k <= g.Scale.Customers; k++ {
			nation := g.rng.IntN(len(nations))
			if err := row(k, fmt.Sprintf("Customer#%09d", k), g.comment(10, 40), nation, g.phone(nation),
				money(g.between(-99999, 999999)), g.pick(segments), g.comment(29, 116)); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("tpch: table %s is generated by Orders", name)
	}
	return nil
}

// Orders calls order and line with the rows of orders first..first+n-1
// and of their lineitems (1 to 7 each), as COPY text lines.
func (g *Generator) Orders(first, n int, order, line func(string) error) error {
	days := int(endDate.Sub(startDate).Hours()/24) - 151
	for key := first; key < first+n; key++ {
		cust := g.between(1, g.Scale.Customers)
		for cust%3 == 0 && g.Scale.Customers > 2 { // a third of the customers place no orders
			cust = g.between(1, g.Scale.Customers)
		}
		ordered := startDate.AddDate(0, 0, g.rng.IntN(days+1))
		var lines []string
		total, open, shipped := 0.0, 0, 0
		for ln, count := 1, g.between(1, 7); ln <= count; ln++ {
			part := g.between(1, g.Scale.Parts)
			qty := g.between(1, 50)
			discount, tax := g.between(0, 10), g.between(0, 8)
			price := qty * retailPrice(part)
			ship := ordered.AddDate(0, 0, g.between(1, 121))
			commit := ordered.AddDate(0, 0, g.between(30, 90))
			receipt := ship.AddDate(0, 0, g.between(1, 30))
			flag := "N"
			if !receipt.After(currentDate) {
				flag = "R"
				if g.rng.IntN(2) == 0 {
					flag = "A"
				}
			}
			status := "O"
			if !ship.After(currentDate) {
				status, shipped = "F", shipped+1
			} else {
				open++
			}
			total += float64(price) * (1 + float64(tax)/100) * (1 - float64(discount)/100)
			lines = append(lines, strings.Join([]string{fmt.Sprint(key), fmt.Sprint(part), fmt.Sprint(g.partSupplier(part, g.rng.IntN(4))),
				fmt.Sprint(ln), fmt.Sprintf("%d.00", qty), money(price), money(discount), money(tax), flag, status,
				date(ship), date(commit), date(receipt), g.pick(instructions), g.pick(shipModes), g.comment(10, 43)}, "\t"))
		}
		status := "P"
		switch {
		case open == 0:
			status = "F"
		case shipped == 0:
			status = "O"
		}
		comment := g.comment(19, 78)
		if key%50 == 0 {
			comment = "furiously special packages requests" // q13 leaves these out
		}
		if err := order(strings.Join([]string{fmt.Sprint(key), fmt.Sprint(cust), status, money(int(total + 0.5)), date(ordered),
			g.pick(priorities), fmt.Sprintf("Clerk#%09d", g.between(1, max(1, g.Scale.Suppliers/10))), "0", comment}, "\t")); err != nil {
			return err
		}
		for _, l := range lines {
			if err := line(l); err != nil {
				return err
			}
		}
	}
	return nil
}
