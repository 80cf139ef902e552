package e2e

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/streamdb/streamdb/dashboard"
)

// TestFollowerRescaleCatalog rescales a view from a follower, which runs
// the rescale, and reads the view's parallelism from that node's own
// catalog as soon as each statement returns (the dashboard's /api/v1/jobs
// reads it without asking the leader, as the control plane does): it is
// the new one. A follower hears of a commit from the leader before its
// Raft log does, and what follows a rescale there (a drain's relocation)
// must not see the job as it was.
func TestFollowerRescaleCatalog(t *testing.T) {
	nodes := startCluster(t, 2)
	conns := connectCluster(t, nodes, pgx.QueryExecModeSimpleProtocol)
	mustExec(t, conns[0], "CREATE TABLE a (id INT PRIMARY KEY, k INT)")
	mustExec(t, conns[0], "INSERT INTO a SELECT g, g % 10 FROM generate_series(1, 1000) g")
	mustExec(t, conns[0], "CREATE MATERIALIZED VIEW v WITH (parallelism = 2) AS SELECT k, count(*) AS n FROM a GROUP BY k")
	get := func(n *clusterNode, path string, v any) {
		t.Helper()
		body, code := httpGet(t, "http://"+n.httpAddr()+path)
		if code != 200 {
			t.Fatalf("%s: %d %s", path, code, body)
		}
		if err := json.Unmarshal([]byte(body), v); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
	// The follower among the two.
	var cluster struct{ Nodes []dashboard.Node }
	get(nodes[0], "/api/v1/cluster", &cluster)
	f := 1
	for _, m := range cluster.Nodes {
		if m.ID == "n2" && m.Role == "leader" {
			f = 0
		}
	}
	follower := nodes[f]
	for _, n := range []int{3, 1, 4, 2, 3} {
		mustExec(t, conns[f], fmt.Sprintf("ALTER MATERIALIZED VIEW v SET PARALLELISM = %d", n))
		var list struct{ Jobs []dashboard.Job }
		get(follower, "/api/v1/jobs", &list)
		i := slices.IndexFunc(list.Jobs, func(j dashboard.Job) bool { return j.Name == "v" })
		if i < 0 {
			t.Fatalf("%s's /api/v1/jobs lists no job v: %+v", follower.flags[1], list.Jobs)
		}
		if p := list.Jobs[i].Parallelism; p != n {
			t.Fatalf("%s's catalog right after SET PARALLELISM = %d: parallelism %d", follower.flags[1], n, p)
		}
	}
}
