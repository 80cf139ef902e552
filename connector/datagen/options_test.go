package datagen

import (
	"errors"
	"testing"

	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

func TestParseOptions(t *testing.T) {
	cols := []Column{{"v", types.TInt4}, {"s.x", types.TVarchar}}
	cfg, err := ParseOptions(cols, map[string]string{
		"connector": "datagen", "datagen.rows.per.second": "20", "datagen.split.num": "3",
		"fields.v.kind": "random", "fields.v.min": " 1 ", "fields.s.x.length": "3",
	}, created)
	if err != nil || cfg.RowsPerSecond != 20 || cfg.SplitNum != 3 || len(cfg.Columns) != 2 {
		t.Fatalf("got %+v, %v", cfg, err)
	}
	defaults, err := ParseOptions(cols, nil, created)
	if err != nil || defaults.RowsPerSecond != 10 || defaults.SplitNum != 1 {
		t.Fatalf("defaults %+v, %v", defaults, err)
	}
}

func TestParseOptionsErrors(t *testing.T) {
	varchar5 := types.T{Family: types.Varchar, Mod: 5}
	for _, c := range []struct {
		typ  types.T
		opts map[string]string
		code string
	}{
		{types.TInt4, map[string]string{"datagen.rows.per.second": "0"}, pgerror.CodeInvalidParameterValue},
		{types.TInt4, map[string]string{"datagen.split.num": "x"}, pgerror.CodeInvalidParameterValue},
		{types.TInt4, map[string]string{"datagen.rows.per.sec": "1"}, pgerror.CodeInvalidParameterValue},
		{types.TInt4, map[string]string{"fields.w.min": "1"}, pgerror.CodeInvalidParameterValue},
		{types.TInt4, map[string]string{"fields.c": "1"}, pgerror.CodeInvalidParameterValue},
		{types.TInt4, map[string]string{"fields.c.kind": "zipf"}, pgerror.CodeInvalidParameterValue},
		{types.TInt4, map[string]string{"fields.c.min": "5", "fields.c.max": "4"}, pgerror.CodeInvalidParameterValue},
		{types.TInt4, map[string]string{"fields.c.kind": "sequence", "fields.c.end": "-1"}, pgerror.CodeInvalidParameterValue},
		{types.TInt2, map[string]string{"fields.c.max": "40000"}, pgerror.CodeInvalidParameterValue},
		{types.TInt4, map[string]string{"fields.c.length": "3"}, pgerror.CodeInvalidParameterValue},
		{types.TInt4, map[string]string{"fields.c.kind": "sequence", "fields.c.min": "3"}, pgerror.CodeInvalidParameterValue},
		{types.TInt4, map[string]string{"fields.c.seed": "-1"}, pgerror.CodeInvalidParameterValue},
		{types.TFloat8, map[string]string{"fields.c.max": "Infinity"}, pgerror.CodeInvalidParameterValue},
		{types.TNumeric, map[string]string{"fields.c.max": "NaN"}, pgerror.CodeInvalidParameterValue},
		{types.TNumeric, map[string]string{"fields.c.min": "0", "fields.c.max": "1e30"}, pgerror.CodeInvalidParameterValue},
		{varchar5, map[string]string{"fields.c.length": "6"}, pgerror.CodeInvalidParameterValue},
		{types.TTimestamp, map[string]string{"fields.c.max_past": "soon"}, pgerror.CodeInvalidParameterValue},
		{types.TTimestamp, map[string]string{"fields.c.max_past_mode": "sideways"}, pgerror.CodeInvalidParameterValue},
		{types.TTimestamp, map[string]string{"fields.c.basetime": "yesterday"}, pgerror.CodeInvalidParameterValue},
		{types.TVarchar, map[string]string{"fields.c.kind": "sequence"}, pgerror.CodeFeatureNotSupported},
		{types.TInterval, nil, pgerror.CodeFeatureNotSupported},
	} {
		_, err := ParseOptions([]Column{{"c", c.typ}}, c.opts, created)
		var pe *pgerror.Error
		if !errors.As(err, &pe) || pe.Code != c.code {
			t.Errorf("%v %v: error %v, want SQLSTATE %s", c.typ, c.opts, err, c.code)
		}
	}
}
