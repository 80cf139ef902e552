package nexmark

import (
	"math/bits"
	"strconv"
	"sync"
)

// The reference's fixed vocabularies.
var (
	usStates   = []string{"az", "ca", "id", "or", "wa", "wy"}
	usCities   = []string{"phoenix", "los angeles", "san francisco", "boise", "portland", "bend", "redmond", "seattle", "kent", "cheyenne"}
	firstNames = []string{"peter", "paul", "luke", "john", "saul", "vicky", "kate", "julie", "sarah", "deiter", "walter"}
	lastNames  = []string{"shultz", "abrams", "spencer", "white", "bartels", "walton", "smith", "jones", "noris"}

	hotChannels = []string{"Google", "Facebook", "Baidu", "Apple"}
)

// fullNames holds every "first last" name, indexed first*len(lastNames)+last,
// so that people's names cost no allocation.
var fullNames = func() []string {
	names := make([]string, 0, len(firstNames)*len(lastNames))
	for _, f := range firstNames {
		for _, l := range lastNames {
			names = append(names, f+" "+l)
		}
	}
	return names
}()

// channelCount is the size of the reference's channel table.
const channelCount = 10_000

// channelTable holds the bid channels and their URLs: the hot channels
// with their URLs, then the reference's 10,000 cold channels "channel-i".
type channelTable struct {
	hotURLs  []string
	names    []string
	coldURLs []string
}

// channels builds the channel table once, on first use.
var channels = sync.OnceValue(func() *channelTable {
	t := &channelTable{names: make([]string, channelCount), coldURLs: make([]string, channelCount)}
	for i := range hotChannels {
		t.hotURLs = append(t.hotURLs, baseURL(uint64(i)))
	}
	var r smallRng
	for i := range channelCount {
		url := baseURL(uint64(i))
		r.seed(uint64(i))
		if r.below32(10) > 0 {
			id := int64(int32(bits.Reverse32(uint32(i))))
			url += "&channel_id=" + strconv.FormatInt(max(id, -id), 10)
		}
		t.names[i] = "channel-" + strconv.Itoa(i)
		t.coldURLs[i] = url
	}
	return t
})

// baseURL is the reference's get_base_url: an item URL with three random
// path segments drawn from a generator seeded with seed.
func baseURL(seed uint64) string {
	var r smallRng
	r.seed(seed)
	b := []byte("https://www.nexmark.com")
	for range 3 {
		b = append(b, '/')
		b = r.appendDelimited(b, 5, '_')
	}
	return string(append(b, "/item.htm?query=1"...))
}

// appendDelimited is gen_string_with_delimiter(maxLen, delim): 3 to maxLen-1
// characters, each the delimiter with probability 1/13, else a letter.
func (r *smallRng) appendDelimited(dst []byte, maxLen uint64, delim byte) []byte {
	const minLen = 3
	for n := minLen + r.below64(maxLen-minLen); n > 0; n-- {
		if r.below32(13) == 0 {
			dst = append(dst, delim)
		} else {
			dst = r.appendLetters(dst, 1)
		}
	}
	return dst
}

// appendCreditCard appends four zero-padded groups of four digits.
func (r *smallRng) appendCreditCard(dst []byte) []byte {
	for i := range 4 {
		if i > 0 {
			dst = append(dst, ' ')
		}
		v := r.below32(10000)
		dst = append(dst, byte('0'+v/1000), byte('0'+v/100%10), byte('0'+v/10%10), byte('0'+v%10))
	}
	return dst
}
