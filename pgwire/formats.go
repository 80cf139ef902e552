package pgwire

import (
	"errors"
	"strconv"
	"time"

	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// errFormatCount reports a Bind message whose number of format codes is
// neither 0, 1 nor the number of values; callers say which values.
var errFormatCount = errors.New("format code count mismatch")

// resolveFormats expands the format codes of a Bind message to one per
// value: no code means text for all, one code applies to all, otherwise
// there is one code per value. It returns nil for all-text.
func resolveFormats(codes []int16, n int) ([]int16, error) {
	if len(codes) > 1 && len(codes) != n {
		return nil, errFormatCount
	}
	for _, c := range codes {
		if c != formatText && c != formatBinary {
			return nil, pgerror.New(pgerror.CodeInvalidParameterValue, "unsupported format code: %d", c)
		}
	}
	switch {
	case len(codes) == 0 || n == 0 || len(codes) == 1 && codes[0] == formatText:
		return nil, nil
	case len(codes) == 1:
		out := make([]int16, n)
		for i := range out {
			out[i] = codes[0]
		}
		return out, nil
	}
	return codes, nil
}

// decodeParams decodes the raw parameter values of a Bind message into
// dst's storage if it has room (else into a new slice); a nil value is
// NULL. formats is as resolveFormats returns it; text is read in TimeZone
// zone (nil: UTC).
func decodeParams(dst []types.Datum, ptypes []types.T, formats []int16, raw [][]byte, zone *time.Location) ([]types.Datum, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	params := dst[:0]
	if cap(params) < len(raw) {
		params = make([]types.Datum, len(raw))
	}
	params = params[:len(raw)]
	for i, v := range raw {
		if v == nil {
			params[i] = types.Null
			continue
		}
		var err error
		if formatOf(formats, i) == formatBinary {
			params[i], err = types.DecodeBinary(ptypes[i], v)
		} else {
			params[i], err = types.ParseTextZone(ptypes[i], string(v), zone)
		}
		if err != nil {
			return nil, paramError(i, ptypes[i], formatOf(formats, i), err)
		}
	}
	return params, nil
}

// paramError reports a parameter that does not decode. A *pgerror.Error from
// the types package is kept, with the parameter named in its detail (unless
// it has one); any other error becomes 22P02 or 22P03.
func paramError(i int, t types.T, format int16, err error) error {
	var pe *pgerror.Error
	if !errors.As(err, &pe) {
		code := pgerror.CodeInvalidTextRepresentation
		if format == formatBinary {
			code = pgerror.CodeInvalidBinaryRepresentation
		}
		return pgerror.New(code, "invalid value for parameter $%d of type %s: %v", i+1, t, err)
	}
	if pe.Detail != "" {
		return pe
	}
	c := *pe
	c.Detail = "in bind parameter $" + strconv.Itoa(i+1)
	return &c
}
