package expr

import (
	"encoding/base64"
	"encoding/hex"
	"strings"
	"unicode/utf8"

	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// encode(bytea, format) and decode(text, format) in PostgreSQL's formats
// hex, base64 and escape; convert_from and convert_to between text and
// its UTF8 bytes (streamdb's one encoding).
func init() {
	RegisterBuiltin("encode", sig(types.TText, func(_ *Ctx, a []types.Datum) (types.Datum, error) {
		b := []byte(a[0].Str())
		switch strings.ToLower(a[1].Str()) {
		case "hex":
			return types.NewString(hex.EncodeToString(b)), nil
		case "base64":
			return types.NewString(base64Lines(base64.StdEncoding.EncodeToString(b))), nil
		case "escape":
			var sb strings.Builder
			for _, c := range b {
				switch {
				case c == '\\':
					sb.WriteString(`\\`)
				case c == 0 || c >= 0x80:
					sb.WriteString(`\` + string('0'+c>>6) + string('0'+c>>3&7) + string('0'+c&7))
				default:
					sb.WriteByte(c)
				}
			}
			return types.NewString(sb.String()), nil
		}
		return types.Null, errEncoding(a[1].Str())
	}, types.Bytea, types.Text))
	RegisterBuiltin("decode", sig(types.TBytea, func(_ *Ctx, a []types.Datum) (types.Datum, error) {
		s := a[0].Str()
		switch strings.ToLower(a[1].Str()) {
		case "hex":
			b, err := hex.DecodeString(strings.Join(strings.Fields(s), ""))
			if err != nil {
				return types.Null, pgerror.New(pgerror.CodeInvalidParameterValue, "invalid hexadecimal data")
			}
			return types.NewBytes(b), nil
		case "base64":
			b, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(s), ""))
			if err != nil {
				return types.Null, pgerror.New(pgerror.CodeInvalidParameterValue, "invalid base64 end sequence").
					WithHint("Input data is missing padding, is truncated, or is otherwise corrupted.")
			}
			return types.NewBytes(b), nil
		case "escape":
			d, err := types.ParseText(types.TBytea, s)
			return d, err
		}
		return types.Null, errEncoding(a[1].Str())
	}, types.Text, types.Text))
	RegisterBuiltin("convert_from", sig(types.TText, func(_ *Ctx, a []types.Datum) (types.Datum, error) {
		if err := checkUTF8Name(a[1].Str()); err != nil {
			return types.Null, err
		}
		s := a[0].Str()
		if !utf8.ValidString(s) {
			return types.Null, pgerror.New("22021", "invalid byte sequence for encoding \"UTF8\"")
		}
		return types.NewString(s), nil
	}, types.Bytea, types.Text))
	RegisterBuiltin("convert_to", sig(types.TBytea, func(_ *Ctx, a []types.Datum) (types.Datum, error) {
		return types.NewBytes([]byte(a[0].Str())), checkUTF8Name(a[1].Str())
	}, types.Text, types.Text))
}

// base64Lines breaks base64 text into lines of 76 characters, as
// PostgreSQL's encode does.
func base64Lines(s string) string {
	var sb strings.Builder
	for len(s) > 76 {
		sb.WriteString(s[:76])
		sb.WriteByte('\n')
		s = s[76:]
	}
	sb.WriteString(s)
	return sb.String()
}

func errEncoding(name string) error {
	return pgerror.New(pgerror.CodeInvalidParameterValue, "unrecognized encoding: \"%s\"", name)
}

// checkUTF8Name accepts the names of UTF8, streamdb's one encoding.
func checkUTF8Name(name string) error {
	switch strings.ToUpper(strings.ReplaceAll(name, "-", "")) {
	case "UTF8", "UNICODE":
		return nil
	}
	return pgerror.New(pgerror.CodeFeatureNotSupported, "encoding %q is not supported", name).WithHint("streamdb stores text in UTF8.")
}
