package cluster

import (
	"encoding"
	"encoding/json"
	"fmt"

	grpcencoding "google.golang.org/grpc/encoding"
)

// codecName is the gRPC content subtype of streamdb's codec.
const codecName = "streamdb"

// codec encodes gRPC messages: values that implement
// encoding.BinaryMarshaler (and their pointers BinaryUnmarshaler) in their
// own binary form (exchange chunks), everything else as JSON (control
// messages, where clarity beats bytes).
type codec struct{}

var _ grpcencoding.Codec = codec{}

func init() { grpcencoding.RegisterCodec(codec{}) }

// Marshal implements grpc's encoding.Codec.
func (codec) Marshal(v any) ([]byte, error) {
	if m, ok := v.(encoding.BinaryMarshaler); ok {
		return m.MarshalBinary()
	}
	return json.Marshal(v)
}

// Unmarshal implements grpc's encoding.Codec.
func (codec) Unmarshal(data []byte, v any) error {
	if u, ok := v.(encoding.BinaryUnmarshaler); ok {
		return u.UnmarshalBinary(data)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("cluster: undecodable %T: %w", v, err)
	}
	return nil
}

// Name implements grpc's encoding.Codec.
func (codec) Name() string { return codecName }
