package pgwire

import (
	"github.com/jackc/pgproto3/v2"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// parse handles Parse: it prepares one statement (or an empty query) and
// registers it.
func (c *conn) parse(m *pgproto3.Parse) error {
	if err := c.reg.stmtNameFree(m.Name); err != nil {
		return err
	}
	var oids []types.OID
	if len(m.ParameterOIDs) > 0 {
		oids = make([]types.OID, len(m.ParameterOIDs))
		for i, o := range m.ParameterOIDs {
			oids[i] = types.OID(o)
		}
	}
	stmts, err := c.prepare(m.Query, oids)
	if err != nil {
		return err
	}
	if len(stmts) > 1 {
		return pgerror.New(pgerror.CodeSyntaxError, "cannot insert multiple commands into a prepared statement").
			WithHint("Send each statement in its own Parse message.")
	}
	var st Statement
	if len(stmts) == 1 {
		st = stmts[0]
	}
	c.reg.addStmt(m.Name, st)
	c.w.send(&pgproto3.ParseComplete{})
	return nil
}

// bind handles Bind: it decodes the parameters and registers a portal.
func (c *conn) bind(m *pgproto3.Bind) error {
	st, err := c.reg.stmt(m.PreparedStatement)
	if err != nil {
		return err
	}
	if err := c.reg.portalNameFree(m.DestinationPortal); err != nil {
		return err
	}
	pformats, err := resolveFormats(m.ParameterFormatCodes, len(m.Parameters))
	if err == errFormatCount {
		return pgerror.New(pgerror.CodeProtocolViolation, "bind message has %d parameter formats but %d parameters",
			len(m.ParameterFormatCodes), len(m.Parameters))
	} else if err != nil {
		return err
	}
	ptypes := paramTypes(st)
	if len(m.Parameters) != len(ptypes) {
		return pgerror.New(pgerror.CodeProtocolViolation, "bind message supplies %d parameters, but prepared statement %q requires %d",
			len(m.Parameters), m.PreparedStatement, len(ptypes))
	}
	params, err := decodeParams(c.reg.spareParams(), ptypes, pformats, m.Parameters, c.w.zone)
	if err != nil {
		return err
	}
	p := &portal{stmt: st, params: params}
	if st != nil {
		p.cols = st.Columns()
	}
	p.formats, err = resolveFormats(m.ResultFormatCodes, len(p.cols))
	if err == errFormatCount {
		return pgerror.New(pgerror.CodeProtocolViolation, "bind message has %d result formats but query has %d columns",
			len(m.ResultFormatCodes), len(p.cols))
	} else if err != nil {
		return err
	}
	c.reg.addPortal(m.DestinationPortal, p)
	c.w.send(&pgproto3.BindComplete{})
	return nil
}

// describe handles Describe of a statement (parameter types and result
// columns in text format) or of a portal (result columns in its formats).
func (c *conn) describe(m *pgproto3.Describe) error {
	var cols []Column
	var formats []int16
	switch m.ObjectType {
	case 'S':
		st, err := c.reg.stmt(m.Name)
		if err != nil {
			return err
		}
		ptypes := paramTypes(st)
		oids := make([]uint32, len(ptypes))
		for i, t := range ptypes {
			oids[i] = uint32(t.OID())
		}
		c.w.send(&pgproto3.ParameterDescription{ParameterOIDs: oids})
		if st != nil {
			cols = st.Columns()
		}
	case 'P':
		p, err := c.reg.portal(m.Name)
		if err != nil {
			return err
		}
		cols, formats = p.cols, p.formats
	default:
		return pgerror.New(pgerror.CodeProtocolViolation, "invalid DESCRIBE message subtype %d", m.ObjectType)
	}
	if cols == nil {
		c.w.send(&pgproto3.NoData{})
	} else {
		c.w.rowDescription(cols, formats)
	}
	return nil
}

// execute handles Execute: it runs the portal until it ends or MaxRows rows
// were sent. A portal whose execution fails is closed.
func (c *conn) execute(m *pgproto3.Execute) error {
	p, err := c.reg.portal(m.Portal)
	if err != nil {
		return err
	}
	switch {
	case p.stmt == nil:
		c.w.send(&pgproto3.EmptyQueryResponse{})
		return nil
	case p.done:
		return pgerror.New(codeObjectNotInPrerequisiteState, "portal %q cannot be run", m.Portal).
			WithDetail("It has already run to completion.")
	}
	suspended, err := c.runPortal(p, m.MaxRows, c.buf.syncNext())
	if !suspended {
		c.reportParams()
	}
	if err != nil {
		c.reg.closePortal(m.Portal)
	}
	return err
}

// closeMessage handles Close of a statement or a portal; closing one that
// does not exist is not an error.
func (c *conn) closeMessage(m *pgproto3.Close) error {
	switch m.ObjectType {
	case 'S':
		c.reg.closeStmt(m.Name)
	case 'P':
		c.reg.closePortal(m.Name)
	default:
		return pgerror.New(pgerror.CodeProtocolViolation, "invalid CLOSE message subtype %d", m.ObjectType)
	}
	c.w.send(&pgproto3.CloseComplete{})
	return nil
}

// paramTypes returns the parameter types of st, which is nil for an empty
// query.
func paramTypes(st Statement) []types.T {
	if st == nil {
		return nil
	}
	return st.ParamTypes()
}
