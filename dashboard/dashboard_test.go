package dashboard

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/streamdb/streamdb/control"
	"github.com/streamdb/streamdb/dataflow"
)

// fakeSource is a two-node cluster running a table t (job 1000) and a
// view v over it (job 1001: a hash fragment of two actors feeding a
// singleton), with four vnodes.
type fakeSource struct{ stats control.Stats }

var heartbeat = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func (fakeSource) Nodes() []Node {
	return []Node{
		{ID: "n1", PgAddr: "h1:4566", ClusterAddr: "h1:5566", Role: "leader", State: "up", Cores: 2, Actors: 3, VNodes: 6, LastHeartbeat: heartbeat, Version: "0.1.0"},
		{ID: "n2", PgAddr: "h2:4566", ClusterAddr: "h2:5566", Role: "voter", State: "down", Cores: 4, Actors: 1, VNodes: 2, Version: "0.1.0"},
	}
}

func (fakeSource) Jobs() []Job {
	return []Job{{ID: 1000, Name: "t", Kind: "table", Parallelism: 1}, {ID: 1001, Name: "v", Kind: "materialized view", Parallelism: 2}}
}

func (fakeSource) Fragments() []control.FragmentActor {
	return []control.FragmentActor{
		{Job: 1000, Name: "t", Fragment: 0, Parallelism: 1, Actor: 0, VNodes: 4, Node: "n1"},
		{Job: 1001, Name: "v", Fragment: 1, Parallelism: 2, Actor: 0, VNodes: 2, Node: "n1"},
		{Job: 1001, Name: "v", Fragment: 1, Parallelism: 2, Actor: 1, VNodes: 2, Node: "n2"},
		{Job: 1001, Name: "v", Fragment: 2, Parallelism: 1, Actor: 0, VNodes: 4, Node: "n1"},
	}
}

func (fakeSource) Edges() []dataflow.FragmentEdge {
	return []dataflow.FragmentEdge{
		{FromJob: 1000, FromFragment: 0, ToJob: 1001, ToFragment: 1, Dist: dataflow.DistHash},
		{FromJob: 1001, FromFragment: 1, ToJob: 1001, ToFragment: 2, Dist: dataflow.DistSingle},
	}
}

func (fakeSource) VNodeOwners(job uint32) ([]int, []string, bool) {
	switch job {
	case 1000:
		return []int{0, 0, 0, 0}, []string{"n1"}, true
	case 1001:
		return []int{0, 1, 1, 0}, []string{"n1", "n2"}, true
	}
	return nil, nil, false
}

func (fakeSource) RescaleJobs() []control.RescaleProgress {
	return []control.RescaleProgress{{Job: 1001, Name: "v", Strategy: "fluid", Phase: "moving", From: 1, To: 2,
		VNodesMoved: 1, VNodesTotal: 2, StepsDone: 1, StepsTotal: 2, BytesMoved: 4096, Elapsed: 1500 * time.Millisecond}}
}

func (s fakeSource) Stats() control.Stats { return s.stats }

func TestEndpoints(t *testing.T) {
	d := New(fakeSource{})
	var lat control.Stats
	d.series.add(heartbeat, lat)
	lat.CommitLatency.Record(4 * time.Millisecond)
	lat.Fragments = []control.FragmentStats{{FragmentRows: dataflow.FragmentRows{In: 500}}}
	d.series.add(heartbeat.Add(2*time.Second), lat)
	mux := http.NewServeMux()
	d.Register(mux)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	tests := []struct {
		path string
		code int
		// want is the JSON body (compared as values) or, for other
		// content, a part of the body.
		want string
	}{
		{"/api/v1/cluster", 200, `{"nodes": [
			{"id": "n1", "pg_addr": "h1:4566", "cluster_addr": "h1:5566", "role": "leader", "state": "up", "cores": 2, "actors": 3, "vnodes": 6, "last_heartbeat": "2026-01-02T03:04:05Z", "version": "0.1.0"},
			{"id": "n2", "pg_addr": "h2:4566", "cluster_addr": "h2:5566", "role": "voter", "state": "down", "cores": 4, "actors": 1, "vnodes": 2, "version": "0.1.0"}]}`},
		{"/api/v1/jobs", 200, `{"jobs": [
			{"id": 1000, "name": "t", "kind": "table", "parallelism": 1, "fragments": [
				{"id": 0, "upstream": [], "downstream": [{"job": 1001, "name": "v", "fragment": 1, "dist": "hash"}],
				 "actors": [{"actor": 0, "node": "n1", "vnodes": 4}]}]},
			{"id": 1001, "name": "v", "kind": "materialized view", "parallelism": 2, "fragments": [
				{"id": 1, "upstream": [{"job": 1000, "name": "t", "fragment": 0, "dist": "hash"}],
				 "downstream": [{"job": 1001, "name": "v", "fragment": 2, "dist": "single"}],
				 "actors": [{"actor": 0, "node": "n1", "vnodes": 2}, {"actor": 1, "node": "n2", "vnodes": 2}]},
				{"id": 2, "upstream": [{"job": 1001, "name": "v", "fragment": 1, "dist": "single"}], "downstream": [],
				 "actors": [{"actor": 0, "node": "n1", "vnodes": 4}]}]}]}`},
		{"/api/v1/jobs/1001/vnodes", 200, `{"job": 1001, "vnodes": [
			{"vnode": 0, "actor": 0, "node": "n1"}, {"vnode": 1, "actor": 1, "node": "n2"},
			{"vnode": 2, "actor": 1, "node": "n2"}, {"vnode": 3, "actor": 0, "node": "n1"}]}`},
		{"/api/v1/jobs/7/vnodes", 404, "no job 7"},
		{"/api/v1/jobs/x/vnodes", 400, `job id "x" is not a number`},
		{"/api/v1/timeseries", 200, `{"interval_ms": 1000, "samples": [
			{"at": "2026-01-02T03:04:07Z", "barriers": 1, "p50_ms": 4, "p99_ms": 4, "rows_per_s": 250}]}`},
		{"/api/v1/rescales", 200, `{"rescales": [{"job": 1001, "name": "v", "strategy": "fluid", "phase": "moving", "from": 1, "to": 2,
			"vnodes_moved": 1, "vnodes_total": 2, "steps_done": 1, "steps_total": 2, "bytes_moved": 4096, "elapsed_ms": 1500}]}`},
		{"/", 200, `<table id="nodes">`},
		{"/static/app.js", 200, "data-vnode"},
		{"/nowhere", 404, "404 page not found"},
	}
	for _, tt := range tests {
		resp, err := http.Get(srv.URL + tt.path)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != tt.code {
			t.Errorf("GET %s: status %d, want %d: %s", tt.path, resp.StatusCode, tt.code, body)
			continue
		}
		if !strings.HasPrefix(tt.want, "{") {
			if !strings.Contains(string(body), tt.want) {
				t.Errorf("GET %s: body lacks %q:\n%s", tt.path, tt.want, body)
			}
			continue
		}
		if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("GET %s: Content-Type %q", tt.path, ct)
		}
		var got, want any
		if err := json.Unmarshal(body, &got); err != nil {
			t.Fatalf("GET %s: %v: %s", tt.path, err, body)
		}
		if err := json.Unmarshal([]byte(tt.want), &want); err != nil {
			t.Fatalf("%s: the test's JSON: %v", tt.path, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("GET %s:\n got %s\nwant %s", tt.path, body, tt.want)
		}
	}
}
