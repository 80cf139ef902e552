package cluster

import (
	"encoding/json"
	"fmt"

	grpcencoding "google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"
)

// codecName is the gRPC content subtype of streamdb's codec.
const codecName = "streamdb"

// codec encodes gRPC messages: a *Frame as its bytes (exchange chunks,
// state in transit), everything else as JSON (control messages, where
// clarity beats bytes). A frame's bytes travel in buffers of gRPC's pool,
// both ways: state moving between nodes at disk speed allocates no fresh
// memory per message (on a virtual machine, faulting fresh pages in costs
// more than copying them).
type codec struct{}

var _ grpcencoding.CodecV2 = codec{}

func init() { grpcencoding.RegisterCodecV2(codec{}) }

// Marshal implements grpc's encoding.CodecV2. A frame's bytes are copied
// into a pooled buffer, which gRPC frees once sent: the sender may reuse
// its own as soon as SendMsg returns.
func (codec) Marshal(v any) (mem.BufferSlice, error) {
	if f, ok := v.(*Frame); ok {
		if len(f.B) == 0 {
			return nil, nil
		}
		pool := mem.DefaultBufferPool()
		buf := pool.Get(len(f.B))
		copy(*buf, f.B)
		return mem.BufferSlice{mem.NewBuffer(buf, pool)}, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return mem.BufferSlice{mem.SliceBuffer(b)}, nil
}

// Unmarshal implements grpc's encoding.CodecV2. A frame's bytes are copied
// into its own buffer, reused if it has room.
func (codec) Unmarshal(data mem.BufferSlice, v any) error {
	if f, ok := v.(*Frame); ok {
		n := data.Len()
		if cap(f.B) < n {
			f.B = make([]byte, n)
		}
		f.B = f.B[:n]
		data.CopyTo(f.B)
		return nil
	}
	if err := json.Unmarshal(data.Materialize(), v); err != nil {
		return fmt.Errorf("cluster: undecodable %T: %w", v, err)
	}
	return nil
}

// Name implements grpc's encoding.CodecV2.
func (codec) Name() string { return codecName }
