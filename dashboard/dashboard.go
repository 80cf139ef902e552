// Package dashboard serves the operator dashboard on a node's HTTP
// listener: a page at / (embedded static files: HTML, CSS and plain
// JavaScript, no build step) that polls JSON endpoints under /api/v1/:
//
//	GET /api/v1/cluster          the cluster's nodes: id, addresses, role,
//	                             state, cores, actors, vnodes, heartbeat
//	GET /api/v1/jobs             every job: id, name, kind, parallelism and
//	                             its fragment graph (each fragment's
//	                             upstream and downstream edges, its actors
//	                             with their node and vnode count)
//	GET /api/v1/jobs/{id}/vnodes the owner of each of the job's 256 vnodes:
//	                             actor (slot) and node (404: no such job)
//	GET /api/v1/timeseries       barrier latency (p50, p99) and rows/s of
//	                             this node, one sample a second for the
//	                             last ten minutes
//	GET /api/v1/rescales         each job's latest rescale and its progress
//
// Every node shows the whole cluster: nodes, jobs and vnode owners come
// from the replicated catalog and the runtime's job graphs (what
// streamdb_catalog.nodes and fragments show); the time series is the
// node's own. The package knows no SQL: the node gives it a Source.
package dashboard

import (
	"embed"
	"encoding/json"
	"io/fs"
	"net/http"
	"strconv"
	"time"

	"github.com/streamdb/streamdb/control"
	"github.com/streamdb/streamdb/dataflow"
)

//go:embed static
var static embed.FS

// Source is what the dashboard reads: the node's view of its cluster.
type Source interface {
	// Nodes returns the cluster's nodes as this node sees them.
	Nodes() []Node
	// Jobs returns the catalog's jobs (their Fragments left empty).
	Jobs() []Job
	// Fragments returns the actors of every running job's fragments.
	Fragments() []control.FragmentActor
	// Edges returns the inputs of every running job's fragments.
	Edges() []dataflow.FragmentEdge
	// VNodeOwners returns the slot owning each vnode of job's parallel
	// fragments and each slot's node; ok is false if there is no such job.
	VNodeOwners(job uint32) (owner []int, nodes []string, ok bool)
	// RescaleJobs returns the latest rescale of each job.
	RescaleJobs() []control.RescaleProgress
	// Stats returns the node's streaming figures now.
	Stats() control.Stats
}

// Node is a node of the cluster (/api/v1/cluster).
type Node struct {
	ID          string `json:"id"`
	PgAddr      string `json:"pg_addr"`
	ClusterAddr string `json:"cluster_addr"`
	// Role is leader, voter, non-voter or joining; State up or down.
	Role  string `json:"role"`
	State string `json:"state"`
	Cores int    `json:"cores"`
	// Actors and VNodes count the actors it runs and the vnodes they own.
	Actors        int       `json:"actors"`
	VNodes        int       `json:"vnodes"`
	LastHeartbeat time.Time `json:"last_heartbeat,omitzero"`
	Version       string    `json:"version"`
}

// Job is a job with its fragment graph (/api/v1/jobs).
type Job struct {
	ID   uint32 `json:"id"`
	Name string `json:"name"`
	// Kind is table, source, materialized view, subscription or sink.
	Kind        string     `json:"kind"`
	Parallelism int        `json:"parallelism"`
	Fragments   []Fragment `json:"fragments"`
}

// Fragment is a fragment of a job's graph: its edges and its actors.
type Fragment struct {
	ID         int     `json:"id"`
	Upstream   []Edge  `json:"upstream"`
	Downstream []Edge  `json:"downstream"`
	Actors     []Actor `json:"actors"`
}

// Edge names the fragment at the other end of an edge (of this job or
// another) and how rows are routed over it (hash, single, broadcast).
type Edge struct {
	Job      uint32 `json:"job"`
	Name     string `json:"name"`
	Fragment int    `json:"fragment"`
	Dist     string `json:"dist"`
}

// Actor is an actor of a fragment: its slot, node and vnode count.
type Actor struct {
	Actor  int    `json:"actor"`
	Node   string `json:"node"`
	VNodes int    `json:"vnodes"`
}

// VNodeMap is the owner of each vnode of a job (/api/v1/jobs/{id}/vnodes).
type VNodeMap struct {
	Job    uint32       `json:"job"`
	VNodes []VNodeOwner `json:"vnodes"`
}

// VNodeOwner is the actor (slot) owning a vnode and its node.
type VNodeOwner struct {
	VNode int    `json:"vnode"`
	Actor int    `json:"actor"`
	Node  string `json:"node"`
}

// Rescale is a job's latest rescale (/api/v1/rescales), as
// streamdb_catalog.rescale_jobs shows it.
type Rescale struct {
	Job      uint32 `json:"job"`
	Name     string `json:"name"`
	Strategy string `json:"strategy"`
	// Phase is moving, done or failed (Error says why).
	Phase       string `json:"phase"`
	From        int    `json:"from"`
	To          int    `json:"to"`
	VNodesMoved int    `json:"vnodes_moved"`
	VNodesTotal int    `json:"vnodes_total"`
	StepsDone   int    `json:"steps_done"`
	StepsTotal  int    `json:"steps_total"`
	BytesMoved  int64  `json:"bytes_moved"`
	ElapsedMS   int64  `json:"elapsed_ms"`
	Error       string `json:"error,omitempty"`
}

// Dashboard serves the page and its endpoints over a Source.
type Dashboard struct {
	src    Source
	series *series
}

// New returns a dashboard over src; its time series fills once Run runs.
func New(src Source) *Dashboard {
	return &Dashboard{src: src, series: newSeries(seriesLen)}
}

// Register adds the page (GET /), its files (GET /static/) and the
// endpoints (GET /api/v1/...) to mux.
func (d *Dashboard) Register(mux *http.ServeMux) {
	files, _ := fs.Sub(static, "static")
	mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(files)))
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		http.ServeFileFS(w, r, files, "index.html")
	})
	mux.HandleFunc("GET /api/v1/cluster", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, map[string]any{"nodes": orEmpty(d.src.Nodes())})
	})
	mux.HandleFunc("GET /api/v1/jobs", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, map[string]any{"jobs": d.jobs()})
	})
	mux.HandleFunc("GET /api/v1/jobs/{id}/vnodes", d.vnodes)
	mux.HandleFunc("GET /api/v1/timeseries", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, map[string]any{"interval_ms": sampleEvery.Milliseconds(), "samples": d.series.samples()})
	})
	mux.HandleFunc("GET /api/v1/rescales", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, map[string]any{"rescales": rescales(d.src.RescaleJobs())})
	})
}

// jobs returns the catalog's jobs with the fragment graphs that run.
func (d *Dashboard) jobs() []Job {
	jobs := d.src.Jobs()
	names := map[uint32]string{}
	byID := map[uint32]*Job{}
	for i := range jobs {
		names[jobs[i].ID] = jobs[i].Name
		byID[jobs[i].ID] = &jobs[i]
		jobs[i].Fragments = []Fragment{}
	}
	frag := func(job uint32, id int) *Fragment {
		j := byID[job]
		if j == nil {
			return nil
		}
		for i := range j.Fragments {
			if j.Fragments[i].ID == id {
				return &j.Fragments[i]
			}
		}
		j.Fragments = append(j.Fragments, Fragment{ID: id, Upstream: []Edge{}, Downstream: []Edge{}, Actors: []Actor{}})
		return &j.Fragments[len(j.Fragments)-1]
	}
	for _, a := range d.src.Fragments() {
		if f := frag(a.Job, a.Fragment); f != nil {
			f.Actors = append(f.Actors, Actor{Actor: a.Actor, Node: a.Node, VNodes: a.VNodes})
		}
	}
	for _, e := range d.src.Edges() {
		dist := e.Dist.String()
		if f := frag(e.ToJob, e.ToFragment); f != nil {
			f.Upstream = append(f.Upstream, Edge{Job: e.FromJob, Name: names[e.FromJob], Fragment: e.FromFragment, Dist: dist})
		}
		if f := frag(e.FromJob, e.FromFragment); f != nil {
			f.Downstream = append(f.Downstream, Edge{Job: e.ToJob, Name: names[e.ToJob], Fragment: e.ToFragment, Dist: dist})
		}
	}
	return orEmpty(jobs)
}

// vnodes serves the owners of a job's vnodes.
func (d *Dashboard) vnodes(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseUint(r.PathValue("id"), 10, 32)
	if err != nil {
		http.Error(w, "job id "+strconv.Quote(r.PathValue("id"))+" is not a number", http.StatusBadRequest)
		return
	}
	owner, nodes, ok := d.src.VNodeOwners(uint32(id))
	if !ok {
		http.Error(w, "no job "+r.PathValue("id"), http.StatusNotFound)
		return
	}
	m := VNodeMap{Job: uint32(id), VNodes: make([]VNodeOwner, len(owner))}
	for v, s := range owner {
		m.VNodes[v] = VNodeOwner{VNode: v, Actor: s}
		if s < len(nodes) {
			m.VNodes[v].Node = nodes[s]
		}
	}
	writeJSON(w, m)
}

// rescales converts the runtime's rescale records.
func rescales(in []control.RescaleProgress) []Rescale {
	out := make([]Rescale, len(in))
	for i, p := range in {
		out[i] = Rescale{Job: p.Job, Name: p.Name, Strategy: p.Strategy, Phase: p.Phase, From: p.From, To: p.To,
			VNodesMoved: p.VNodesMoved, VNodesTotal: p.VNodesTotal, StepsDone: p.StepsDone, StepsTotal: p.StepsTotal,
			BytesMoved: p.BytesMoved, ElapsedMS: p.Elapsed.Milliseconds(), Error: p.Error}
	}
	return out
}

// orEmpty makes a nil slice an empty one, so that it encodes as [].
func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(v)
}
