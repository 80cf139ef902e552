package pgwire

import (
	"errors"
	"slices"
	"testing"

	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

func TestResolveFormats(t *testing.T) {
	tests := []struct {
		codes   []int16
		n       int
		want    []int16
		wantErr string // SQLSTATE, or "count" for errFormatCount
	}{
		{nil, 3, nil, ""},
		{[]int16{0}, 3, nil, ""},
		{[]int16{1}, 3, []int16{1, 1, 1}, ""},
		{[]int16{1}, 0, nil, ""},
		{[]int16{0, 1}, 2, []int16{0, 1}, ""},
		{[]int16{0, 1}, 3, nil, "count"},
		{[]int16{0, 1}, 1, nil, "count"},
		{[]int16{0, 1}, 0, nil, "count"},
		{[]int16{2}, 1, nil, pgerror.CodeInvalidParameterValue},
		{[]int16{0, -1}, 2, nil, pgerror.CodeInvalidParameterValue},
	}
	for _, tc := range tests {
		got, err := resolveFormats(tc.codes, tc.n)
		gotErr := pgerror.Code(err)
		if errors.Is(err, errFormatCount) {
			gotErr = "count"
		}
		if gotErr != tc.wantErr || !slices.Equal(got, tc.want) {
			t.Errorf("resolveFormats(%v, %d) = %v, %v; want %v, %s", tc.codes, tc.n, got, err, tc.want, tc.wantErr)
		}
	}
}

func TestDecodeParams(t *testing.T) {
	int8 := []types.T{types.TInt8}
	tests := []struct {
		name     string
		ptypes   []types.T
		formats  []int16
		raw      [][]byte
		want     []types.Datum
		wantCode string
	}{
		{"none", nil, nil, nil, nil, ""},
		{"text", int8, nil, [][]byte{[]byte("-7")}, []types.Datum{types.NewInt(-7)}, ""},
		{"binary", int8, []int16{1}, [][]byte{{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xf9}}, []types.Datum{types.NewInt(-7)}, ""},
		{"null", []types.T{types.TInt8, types.TText}, []int16{1, 0}, [][]byte{nil, nil}, []types.Datum{types.Null, types.Null}, ""},
		{"empty text is not null", []types.T{types.TText}, nil, [][]byte{{}}, []types.Datum{types.NewString("")}, ""},
		{"bad text", int8, nil, [][]byte{[]byte("x")}, nil, pgerror.CodeInvalidTextRepresentation},
		{"bad binary", int8, []int16{1}, [][]byte{{1, 2}}, nil, pgerror.CodeInvalidBinaryRepresentation},
	}
	for _, tc := range tests {
		got, err := decodeParams(nil, tc.ptypes, tc.formats, tc.raw, nil)
		if code := pgerror.Code(err); code != tc.wantCode || !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %v, %v; want %v, %s", tc.name, got, err, tc.want, tc.wantCode)
		}
	}
}

func TestParamError(t *testing.T) {
	tests := []struct {
		name       string
		err        error
		format     int16
		wantCode   string
		wantDetail string
	}{
		{"pgerror gains a detail", pgerror.New(pgerror.CodeNumericValueOutOfRange, "out of range"), formatText,
			pgerror.CodeNumericValueOutOfRange, "in bind parameter $2"},
		{"pgerror detail kept", pgerror.New(pgerror.CodeNumericValueOutOfRange, "out of range").WithDetail("d"), formatText,
			pgerror.CodeNumericValueOutOfRange, "d"},
		{"plain text error", errors.New("bad"), formatText, pgerror.CodeInvalidTextRepresentation, ""},
		{"plain binary error", errors.New("bad"), formatBinary, pgerror.CodeInvalidBinaryRepresentation, ""},
	}
	for _, tc := range tests {
		got := pgerror.From(paramError(1, types.TInt4, tc.format, tc.err))
		if got.Code != tc.wantCode || got.Detail != tc.wantDetail {
			t.Errorf("%s: got %+v", tc.name, got)
		}
	}
}
