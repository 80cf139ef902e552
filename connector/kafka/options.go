package kafka

import (
	"strconv"
	"strings"

	"github.com/streamdb/streamdb/pgerror"
)

// The WITH options of a kafka source. Format, Encode and the Encode
// prefix hold its FORMAT ... ENCODE ... (options) clause.
const (
	Topic         = "topic"
	Brokers       = "properties.bootstrap.server"
	StartupMode   = "scan.startup.mode"
	StartupMillis = "scan.startup.timestamp.millis"
	// Partitions is the partition count found at creation, recorded so
	// that the source keeps its splits at every start.
	Partitions   = "topic.partitions"
	FormatOption = "format"
	Encode       = "encode"
	// EncodeOption prefixes the options of the ENCODE clause.
	EncodeOption = "encode."
)

// Format is what a record means: FORMAT PLAIN, UPSERT or DEBEZIUM.
type Format int

// The formats.
const (
	// Plain: each record's value is a row, appended.
	Plain Format = iota
	// Upsert: each record upserts the row its value holds, keyed by the
	// table's primary key (from the value, or the record's key where the
	// value leaves a key column out); a null value (a tombstone) deletes
	// the row of the record's key.
	Upsert
	// Debezium: each record's value is a Debezium change event (op c, r,
	// u upsert the after image; d deletes the before image's key).
	Debezium
)

// Keyed reports whether records are changes by primary key, which feed a
// table with one.
func (f Format) Keyed() bool { return f != Plain }

// Encoding is how a record's value encodes a row.
type Encoding int

// The encodings.
const (
	// JSON: a JSON object whose fields are matched to columns by name.
	JSON Encoding = iota
	// CSV: one line of fields, matched to columns by position.
	CSV
)

// Config is a kafka source's parsed options.
type Config struct {
	Topic   string
	Brokers []string
	// Latest starts a split without a checkpointed offset at the end of
	// its partition, else at its start (or at StartMillis, if set).
	Latest      bool
	StartMillis int64
	// Partitions is 0 until resolved at creation.
	Partitions int
	Format     Format
	Encoding   Encoding
	// Delimiter separates CSV fields; Header says that records equal to
	// the column names are a header line, which is skipped.
	Delimiter byte
	Header    bool
}

// ParseOptions parses a kafka source's options (keys lowercased). Errors
// are *pgerror.Error naming the option at fault.
func ParseOptions(opts map[string]string) (Config, error) {
	cfg := Config{Topic: strings.TrimSpace(opts[Topic]), Delimiter: ','}
	if cfg.Topic == "" {
		return cfg, missing(Topic, "the topic to read")
	}
	for _, b := range strings.Split(opts[Brokers], ",") {
		if b = strings.TrimSpace(b); b != "" {
			cfg.Brokers = append(cfg.Brokers, b)
		}
	}
	if len(cfg.Brokers) == 0 {
		return cfg, missing(Brokers, "the brokers' host:port, comma-separated")
	}
	switch mode := strings.ToLower(strings.TrimSpace(opts[StartupMode])); mode {
	case "", "earliest":
	case "latest":
		cfg.Latest = true
	default:
		return cfg, invalid(StartupMode, mode, "Use 'earliest' (the default) or 'latest'.")
	}
	if v, ok := opts[StartupMillis]; ok {
		ms, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil || ms < 0 {
			return cfg, invalid(StartupMillis, v, "Give milliseconds since 1970-01-01 UTC.")
		}
		if cfg.Latest {
			return cfg, pgerror.New(pgerror.CodeInvalidParameterValue, "options %s and %s = 'latest' conflict", StartupMillis, StartupMode).
				WithHint("Give one of them.")
		}
		cfg.StartMillis = ms
	}
	if v, ok := opts[Partitions]; ok {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 1 {
			return cfg, invalid(Partitions, v, "Leave it out: it is found from the topic at creation.")
		}
		cfg.Partitions = n
	}
	return cfg, parseEncoding(&cfg, opts)
}

// parseEncoding parses the FORMAT and ENCODE options into cfg.
func parseEncoding(cfg *Config, opts map[string]string) error {
	switch f := opts[FormatOption]; f {
	case "plain":
	case "upsert":
		cfg.Format = Upsert
	case "debezium":
		cfg.Format = Debezium
	case "":
		return pgerror.New(pgerror.CodeSyntaxError, "a kafka source needs a FORMAT clause").
			WithHint("Add FORMAT PLAIN ENCODE JSON or FORMAT PLAIN ENCODE CSV.")
	default:
		return pgerror.New(pgerror.CodeFeatureNotSupported, "FORMAT %s is not supported by the kafka connector", strings.ToUpper(f)).
			WithHint("Use FORMAT PLAIN, UPSERT or DEBEZIUM.")
	}
	switch e := opts[Encode]; e {
	case "json":
		cfg.Encoding = JSON
	case "csv":
		if cfg.Format != Plain {
			return pgerror.New(pgerror.CodeFeatureNotSupported, "FORMAT %s ENCODE CSV is not supported by the kafka connector", strings.ToUpper(opts[FormatOption])).
				WithHint("Use ENCODE JSON.")
		}
		cfg.Encoding = CSV
	default:
		return pgerror.New(pgerror.CodeFeatureNotSupported, "ENCODE %s is not supported by the kafka connector", strings.ToUpper(e)).
			WithHint("Use ENCODE JSON or ENCODE CSV.")
	}
	for key, v := range opts {
		name, ok := strings.CutPrefix(key, EncodeOption)
		if !ok {
			continue
		}
		switch {
		case cfg.Encoding == CSV && name == "delimiter":
			if len(v) != 1 || v == "\"" || v == "\n" || v == "\r" {
				return invalid(name, v, "The CSV delimiter is one single-byte character other than a quote or a newline.")
			}
			cfg.Delimiter = v[0]
		case cfg.Encoding == CSV && name == "without_header":
			b, err := strconv.ParseBool(strings.TrimSpace(v))
			if err != nil {
				return invalid(name, v, "Use 'true' (the default: every record is a row) or 'false' (records holding the column names are skipped).")
			}
			cfg.Header = !b
		default:
			return pgerror.New(pgerror.CodeInvalidParameterValue, "unrecognized ENCODE %s option %s", strings.ToUpper(opts[Encode]), name).
				WithHint("ENCODE CSV takes delimiter and without_header; ENCODE JSON takes none.")
		}
	}
	return nil
}

// missing is the error for a required option left out.
func missing(key, what string) error {
	return pgerror.New(pgerror.CodeInvalidParameterValue, "a kafka source needs the option %s", key).
		WithHint("Add %s = '...', %s.", key, what)
}

// invalid is the error for an option's bad value.
func invalid(key, value, hint string) error {
	return pgerror.New(pgerror.CodeInvalidParameterValue, "invalid value %q for option %s", value, key).WithHint("%s", hint)
}
