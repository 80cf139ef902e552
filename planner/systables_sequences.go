package planner

import (
	"strconv"

	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/types"
)

// Sequences in the catalogs: pg_sequence holds their options,
// pg_sequences and information_schema.sequences show them with their
// values, pg_depend ties a sequence to the column owning it (psql's
// "Owned by").

// sequences yields the sequences of cat.
func sequences(cat *meta.Catalog) []*meta.Table {
	var out []*meta.Table
	for _, t := range cat.Tables() {
		if t.Kind == meta.KindSequence {
			out = append(out, t)
		}
	}
	return out
}

var sequenceCatalogTables = map[string]*sysTable{
	"pg_sequence": {
		cols: sysCols("seqrelid oid", "seqtypid oid", "seqstart int8", "seqincrement int8", "seqmax int8", "seqmin int8",
			"seqcache int8", "seqcycle bool"),
		rows: func(cat *meta.Catalog) [][]types.Datum {
			var rows [][]types.Datum
			for _, t := range sequences(cat) {
				s := t.Sequence
				rows = append(rows, []types.Datum{dOID(t.ID), dType(s.Type()), dInt(s.Start), dInt(s.Increment), dInt(s.Max), dInt(s.Min),
					dInt(s.Cache), dBool(s.Cycle)})
			}
			return rows
		},
	},
	"pg_sequences": {
		cols: pgSequencesCols,
		live: func(cat *meta.Catalog) [][]expr.Expr {
			var rows [][]expr.Expr
			for _, t := range sequences(cat) {
				s := t.Sequence
				row := constants(pgSequencesCols, dStr(t.Schema), dStr(t.Name), dStr(cat.RoleName(t.OwnerID())), dStr(s.Type().String()), dInt(s.Start),
					dInt(s.Min), dInt(s.Max), dInt(s.Increment), dBool(s.Cycle), dInt(s.Cache))
				last, _ := expr.NewFunc("pg_sequence_last_value", []expr.Expr{expr.NewConst(dOID(t.ID), types.TOid)})
				rows = append(rows, append(row, last))
			}
			return rows
		},
	},
	"pg_depend": {
		cols: sysCols("classid oid", "objid oid", "objsubid int4", "refclassid oid", "refobjid oid", "refobjsubid int4", "deptype text"),
		rows: func(cat *meta.Catalog) [][]types.Datum {
			var rows [][]types.Datum
			pgClass := dOID(sysTableOIDs["pg_class"])
			for _, t := range sequences(cat) {
				s := t.Sequence
				owner, ok := cat.TableByID(s.OwnedTable)
				if !ok || s.OwnedColumn >= len(owner.Columns) {
					continue
				}
				deptype := "a"
				if owner.Columns[s.OwnedColumn].Identity != 0 {
					deptype = "i"
				}
				rows = append(rows, []types.Datum{pgClass, dOID(t.ID), dInt(0), pgClass, dOID(owner.ID), dInt(int64(s.OwnedColumn + 1)), dStr(deptype)})
			}
			return rows
		},
	},
}

var informationSchemaSequences = map[string]*sysTable{
	"sequences": {
		cols: sysCols("sequence_catalog name", "sequence_schema name", "sequence_name name", "data_type text",
			"numeric_precision int4", "numeric_precision_radix int4", "numeric_scale int4", "start_value text",
			"minimum_value text", "maximum_value text", "increment text", "cycle_option text"),
		rows: func(cat *meta.Catalog) [][]types.Datum {
			var rows [][]types.Datum
			for _, t := range sequences(cat) {
				s := t.Sequence
				_, prec, _, _ := typeFacets(s.Type())
				rows = append(rows, []types.Datum{dStr(databaseName), dStr(t.Schema), dStr(t.Name), dStr(dataType(s.Type())),
					prec, dInt(2), dInt(0), dStr(strconv.FormatInt(s.Start, 10)), dStr(strconv.FormatInt(s.Min, 10)), dStr(strconv.FormatInt(s.Max, 10)), dStr(strconv.FormatInt(s.Increment, 10)), dStr(yesNo(s.Cycle))})
			}
			return rows
		},
	},
}

// pgSequencesCols are pg_sequences' columns.
var pgSequencesCols = sysCols("schemaname name", "sequencename name", "sequenceowner name", "data_type text", "start_value int8",
	"min_value int8", "max_value int8", "increment_by int8", "cycle bool", "cache_size int8", "last_value int8")

// constants returns ds as constants of the types of cols.
func constants(cols []Column, ds ...types.Datum) []expr.Expr {
	out := make([]expr.Expr, len(ds))
	for i, d := range ds {
		out[i] = expr.NewConst(d, cols[i].T)
	}
	return out
}

func yesNo(b bool) string {
	if b {
		return "YES"
	}
	return "NO"
}

// identityGeneration is information_schema.columns' identity_generation.
func identityGeneration(c meta.Column) types.Datum {
	switch c.Identity {
	case 'a':
		return dStr("ALWAYS")
	case 'd':
		return dStr("BY DEFAULT")
	}
	return dNull
}
