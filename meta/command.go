package meta

import (
	"encoding/json"
	"fmt"

	"github.com/streamdb/streamdb/types"
)

// commandVersion is the version of the command encoding. An FSM refuses
// commands of a newer version than it knows: a node must not apply what it
// cannot understand.
const commandVersion = 1

// op names a command type. Later commands (jobs, fragments, vnode
// assignments, epochs) add ops; an op's payload may gain fields but never
// change their meaning.
type op string

const (
	opCreateTable op = "create_table"
	opDropObject  op = "drop_object"
	opCreateIndex op = "create_index"
	opDropIndex   op = "drop_index"
	opAllocIDs    op = "alloc_ids"
	opCommitEpoch op = "commit_epoch"
	opSetSystem   op = "set_system"
	opRescale     op = "rescale"
	// opEndRescale forgets a failed rescale (EndRescale).
	opEndRescale  op = "end_rescale"
	opInitCluster op = "init_cluster"
	opPutNode     op = "put_node"
	opRemoveNode  op = "remove_node"
	// opBeginRecovery records a recovery of the streaming jobs (Fence).
	opBeginRecovery op = "begin_recovery"
	// opDurable records a durable checkpoint (Durable); opForceRemove
	// removes a node lost for good (ForceRemoveNode).
	opDurable      op = "durable_checkpoint"
	opForceRemove  op = "force_remove_node"
	opCreateSchema op = "create_schema"
	opDropSchema   op = "drop_schema"
	opRename       op = "rename"
	opRenameColumn op = "rename_column"
	opComment      op = "comment"
	opAddColumn    op = "add_column"
	opDropColumn   op = "drop_column"
	opCreateFunc   op = "create_function"
	opDropFunc     op = "drop_function"
	// Sequences: a node's block of values, setval, ALTER SEQUENCE.
	opSeqAlloc      op = "sequence_alloc"
	opSeqSet        op = "sequence_set"
	opAlterSequence op = "alter_sequence"
	// Roles: CREATE, ALTER and DROP ROLE/USER.
	opCreateRole op = "create_role"
	opAlterRole  op = "alter_role"
	opDropRole   op = "drop_role"
	// Privileges: GRANT and REVOKE, ALTER ... OWNER TO.
	opGrant      op = "grant"
	opAlterOwner op = "alter_owner"
)

// command is the envelope of every Raft log entry the FSM applies.
type command struct {
	Version int             `json:"v"`
	Op      op              `json:"op"`
	Payload json.RawMessage `json:"payload"`
	// ID, if set, identifies the request: the FSM applies a command of
	// an ID it remembers once (see outcomes).
	ID string `json:"id,omitempty"`
}

type createTableCmd struct {
	Table *Table `json:"table"`
	// Owned are the sequences of its serial and identity columns.
	Owned       []OwnedSequence `json:"owned,omitempty"`
	IfNotExists bool            `json:"if_not_exists,omitempty"`
}

type dropObjectCmd struct {
	Kind     ObjectKind `json:"kind"`
	Schema   string     `json:"schema"`
	Name     string     `json:"name"`
	IfExists bool       `json:"if_exists,omitempty"`
	Cascade  bool       `json:"cascade,omitempty"`
}

type createIndexCmd struct {
	Schema      string `json:"schema"`
	Table       string `json:"table"`
	Index       Index  `json:"index"`
	IfNotExists bool   `json:"if_not_exists,omitempty"`
}

type dropIndexCmd struct {
	Schema   string `json:"schema"`
	Name     string `json:"name"`
	IfExists bool   `json:"if_exists,omitempty"`
}

type createSchemaCmd struct {
	Name        string `json:"name"`
	IfNotExists bool   `json:"if_not_exists,omitempty"`
	Owner       uint32 `json:"owner,omitempty"`
}

type dropSchemaCmd struct {
	Name     string `json:"name"`
	IfExists bool   `json:"if_exists,omitempty"`
	Cascade  bool   `json:"cascade,omitempty"`
}

type renameCmd struct {
	Kind     ObjectKind `json:"kind"`
	Schema   string     `json:"schema"`
	Name     string     `json:"name"`
	NewName  string     `json:"new_name"`
	IfExists bool       `json:"if_exists,omitempty"`
}

type renameColumnCmd struct {
	Kind    ObjectKind `json:"kind"`
	Schema  string     `json:"schema"`
	Table   string     `json:"table"`
	Column  string     `json:"column"`
	NewName string     `json:"new_name"`
}

type commentCmd struct {
	Kind   ObjectKind `json:"kind"`
	Schema string     `json:"schema"`
	Name   string     `json:"name"`
	Column string     `json:"column,omitempty"`
	Text   string     `json:"text"`
}

type addColumnCmd struct {
	Schema      string `json:"schema"`
	Table       string `json:"table"`
	Column      Column `json:"column"`
	IfNotExists bool   `json:"if_not_exists,omitempty"`
}

type dropColumnCmd struct {
	Schema   string `json:"schema"`
	Table    string `json:"table"`
	Column   string `json:"column"`
	IfExists bool   `json:"if_exists,omitempty"`
}

type createFunctionCmd struct {
	Function  *Function `json:"function"`
	OrReplace bool      `json:"or_replace,omitempty"`
}

type dropFunctionCmd struct {
	Schema string `json:"schema"`
	Name   string `json:"name"`
	// ArgTypes are the argument types' OIDs; nil: any, if the name is
	// unique.
	ArgTypes []types.OID `json:"arg_types"`
	IfExists bool        `json:"if_exists,omitempty"`
	Cascade  bool        `json:"cascade,omitempty"`
}

type allocIDsCmd struct {
	N int `json:"n"`
}

type commitEpochCmd struct {
	// Fence is the recovery whose generation sealed the epoch.
	Fence Fence  `json:"fence"`
	Epoch uint64 `json:"epoch"`
	// Step, if set, is the rescale step the epoch's barrier switched.
	Step *RescaleStep `json:"step,omitempty"`
}

type rescaleCmd struct {
	Table   uint32   `json:"table"`
	Rescale *Rescale `json:"rescale"`
}

type endRescaleCmd struct {
	Table  uint32 `json:"table"`
	Runner string `json:"runner"`
}

type setSystemCmd struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

func encodeCommand(o op, payload any, id string) ([]byte, error) {
	p, err := json.Marshal(payload)
	if err != nil {
		return nil, err
	}
	return json.Marshal(command{Version: commandVersion, Op: o, Payload: p, ID: id})
}

func decodeCommand(data []byte) (command, error) {
	var c command
	if err := json.Unmarshal(data, &c); err != nil {
		return c, fmt.Errorf("meta: undecodable command: %w", err)
	}
	if c.Version > commandVersion {
		return c, fmt.Errorf("meta: command %q has version %d, this node understands up to %d: upgrade this node", c.Op, c.Version, commandVersion)
	}
	return c, nil
}

func decodePayload[T any](c command) (*T, error) {
	p := new(T)
	if err := json.Unmarshal(c.Payload, p); err != nil {
		return nil, fmt.Errorf("meta: undecodable %s command: %w", c.Op, err)
	}
	return p, nil
}

type initClusterCmd struct {
	ClusterID string `json:"cluster_id"`
	Voters    int    `json:"voters,omitempty"`
	Origin    string `json:"origin"`
}

type putNodeCmd struct {
	Node *Node `json:"node"`
}

type removeNodeCmd struct {
	ID string `json:"id"`
}
