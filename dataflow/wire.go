package dataflow

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/streamdb/streamdb/types"
)

// Frame kinds: the first byte of an encoded message.
const (
	frameChunk     byte = 'C'
	frameBarrier   byte = 'B'
	frameWatermark byte = 'W'
	frameLoaded    byte = 'L'
	frameIdle      byte = 'I'
)

// AppendMessage appends the wire encoding of m, a message on a queue
// between actors on different nodes. A barrier travels without its
// mutation: the receiving node applies its own part of the change at
// that epoch (Runtime.deliver).
func AppendMessage(dst []byte, m Message) ([]byte, error) {
	switch m := m.(type) {
	case *Chunk:
		dst = append(dst, frameChunk)
		dst = binary.AppendUvarint(dst, uint64(len(m.Rows)))
		for _, op := range m.Ops {
			dst = append(dst, byte(op))
		}
		for _, row := range m.Rows {
			dst = types.AppendRow(dst, row)
		}
	case *Barrier:
		dst = append(dst, frameBarrier)
		dst = binary.AppendUvarint(dst, m.Epoch)
		dst = binary.AppendVarint(dst, m.Time)
		dst = append(dst, boolByte(m.Checkpoint))
	case *Watermark:
		dst = append(dst, frameWatermark)
		dst = binary.AppendUvarint(dst, uint64(m.Col))
		dst = types.AppendRow(dst, []types.Datum{m.Val})
	case *Loaded:
		dst = append(dst, frameLoaded)
	case *Idle:
		dst = append(dst, frameIdle)
	default:
		return nil, fmt.Errorf("dataflow: cannot send %T between nodes", m)
	}
	return dst, nil
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}

var errBadFrame = errors.New("dataflow: undecodable message from another node")

// DecodeMessage decodes a message encoded by AppendMessage whose rows have
// the column types rowTypes.
func DecodeMessage(src []byte, rowTypes []types.T) (Message, error) {
	if len(src) == 0 {
		return nil, errBadFrame
	}
	body := src[1:]
	switch src[0] {
	case frameChunk:
		n, k := binary.Uvarint(body)
		if k <= 0 || uint64(len(body)-k) < n {
			return nil, errBadFrame
		}
		body = body[k:]
		c := &Chunk{Ops: make([]Op, n), Rows: make([][]types.Datum, 0, n)}
		for i := range c.Ops {
			if c.Ops[i] = Op(body[i]); c.Ops[i] > Truncate {
				return nil, errBadFrame
			}
		}
		var arena types.RowArena
		err := types.DecodeRowBlockInto(body[n:], rowTypes, &arena, func(row []types.Datum) error {
			c.Rows = append(c.Rows, row)
			return nil
		})
		if err != nil || uint64(len(c.Rows)) != n {
			return nil, errBadFrame
		}
		return c, nil
	case frameBarrier:
		epoch, k := binary.Uvarint(body)
		if k <= 0 {
			return nil, errBadFrame
		}
		t, k2 := binary.Varint(body[k:])
		if k2 <= 0 || len(body) != k+k2+1 {
			return nil, errBadFrame
		}
		return &Barrier{Epoch: epoch, Time: t, Checkpoint: body[k+k2] == 1}, nil
	case frameWatermark:
		col, k := binary.Uvarint(body)
		if k <= 0 || col >= uint64(len(rowTypes)) {
			return nil, errBadFrame
		}
		row, err := types.DecodeRow(body[k:], rowTypes[col:col+1], nil)
		if err != nil {
			return nil, errBadFrame
		}
		return &Watermark{Col: int(col), Val: row[0]}, nil
	case frameLoaded:
		if len(body) != 0 {
			return nil, errBadFrame
		}
		return &Loaded{}, nil
	case frameIdle:
		if len(body) != 0 {
			return nil, errBadFrame
		}
		return &Idle{}, nil
	}
	return nil, errBadFrame
}
