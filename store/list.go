package store

import (
	"context"
	"database/sql"
	"fmt"
	"hash/fnv"
	"time"
)

// Listing is one line of the list of a store's studies (List): what its
// spec says, read with SQLite's JSON functions, and its counts.
type Listing struct {
	Study       string
	Algorithm   string // the algorithm's label, else its name
	Box         bool   // a box decision set, else a finite one
	Actions     int    // the finite decision set's size; 0 for a box
	Dim         int
	Constraints int
	Horizon     int
	Rounds      int // observations in force (not retracted)
	Retracted   int // observations retracted
	Violations  int // among the observations in force
	Failures    int // failed trials in force (counted in Rounds, not in Violations)
	Pending     int // asks handed out, not told and not withdrawn
	// Created is when the study was created, Updated the time of its
	// last event (Created when it has none).
	Created, Updated time.Time
}

// listStatic is what the list shows of a study's spec. A spec never
// changes, and reading it is the expensive part of a listing — a finite
// study's stored spec repeats its actions: 0.7 s for a million actions —
// so the store reads it once per study (Store.listed).
type listStatic struct {
	algorithm                 string
	box                       bool
	actions, dim, constraints int
	horizon                   int
}

// List returns every study of the store with its counts, by name, read by
// one query: no study is loaded. The counts follow the rules a loaded
// study keeps: a retraction takes its observation out of the rounds and
// the violations and withdraws every ask pending at the time, so the
// pending asks are the asks after the last retraction that no tell
// answers — by its ID, ask_base + its seq: a study created again under a
// deleted one's name, or renamed onto it, numbers its asks after the old
// one's.
func (s *Store) List(ctx context.Context) ([]Listing, error) {
	l, err := s.list(ctx)
	return l, storageError(err, s.path)
}

func (s *Store) list(ctx context.Context) ([]Listing, error) {
	inForce := `NOT EXISTS (SELECT 1 FROM events r WHERE r.study = t.study AND r.kind = 'retract' AND r.ref = t.seq)`
	// The subqueries use the indexes: the primary key (study, seq),
	// one_tell_per_ask and one_retraction_per_observation.
	q := `SELECT s.name, s.created,
		COALESCE(c.tells, 0), COALESCE(c.retracts, 0),
		(SELECT created FROM events e WHERE e.study = s.name ORDER BY seq DESC LIMIT 1),
		COALESCE(v.n, 0), COALESCE(p.n, 0), COALESCE(fl.n, 0),
		(SELECT MAX(horizon) FROM events x WHERE x.study = s.name AND x.kind = 'extend')
	FROM studies s
	LEFT JOIN (SELECT study, SUM(kind IN ('tell', 'fail')) AS tells, SUM(kind = 'retract') AS retracts FROM events GROUP BY study) c
		ON c.study = s.name
	LEFT JOIN (SELECT t.study, COUNT(*) AS n FROM events t WHERE t.kind = 'tell' AND t.violation = 1 AND ` + inForce + ` GROUP BY t.study) v
		ON v.study = s.name
	LEFT JOIN (SELECT t.study, COUNT(*) AS n FROM events t WHERE t.kind = 'fail' AND ` + inForce + ` GROUP BY t.study) fl
		ON fl.study = s.name
	LEFT JOIN (SELECT a.study, COUNT(*) AS n FROM events a
		JOIN studies st ON st.name = a.study
		LEFT JOIN (SELECT study, MAX(seq) AS seq FROM events WHERE kind = 'retract' GROUP BY study) lr ON lr.study = a.study
		WHERE a.kind = 'ask' AND a.seq > COALESCE(lr.seq, 0)
			AND NOT EXISTS (SELECT 1 FROM events t WHERE t.study = a.study AND t.kind IN ('tell', 'fail') AND t.ask = st.ask_base + a.seq)
		GROUP BY a.study) p
		ON p.study = s.name
	ORDER BY s.name`
	rows, err := s.db.QueryContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("list studies: %w", err)
	}
	defer rows.Close()
	list := []Listing{}
	var extended []sql.NullInt64
	for rows.Next() {
		var (
			in      Listing
			created string
			updated *string
			tells   int
			horizon sql.NullInt64
		)
		if err := rows.Scan(&in.Study, &created, &tells, &in.Retracted, &updated, &in.Violations, &in.Pending, &in.Failures, &horizon); err != nil {
			return nil, fmt.Errorf("list studies: %w", err)
		}
		in.Rounds = tells - in.Retracted
		in.Created, _ = time.Parse(time.RFC3339Nano, created)
		in.Updated = in.Created
		if updated != nil {
			in.Updated, _ = time.Parse(time.RFC3339Nano, *updated)
		}
		list = append(list, in)
		extended = append(extended, horizon)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list studies: %w", err)
	}
	rows.Close()
	for i := range list {
		st, err := s.listStatic(ctx, list[i].Study)
		if err != nil {
			return nil, err
		}
		in := &list[i]
		in.Algorithm, in.Box, in.Actions, in.Dim, in.Constraints, in.Horizon = st.algorithm, st.box, st.actions, st.dim, st.constraints, st.horizon
		if h := extended[i]; h.Valid {
			in.Horizon = int(h.Int64) // extended (study extend)
		}
	}
	return list, nil
}

// listStatic returns what the list shows of a study's spec, read once.
// The scalars are read with SQLite's JSON functions, so that neither the
// spec nor the actions are decoded in Go.
func (s *Store) listStatic(ctx context.Context, name string) (listStatic, error) {
	if st, ok := s.listed.Load(name); ok {
		return st.(listStatic), nil
	}
	var (
		st              listStatic
		boxDim, actions *int64
	)
	err := s.db.QueryRowContext(ctx, `SELECT
		COALESCE(json_extract(spec, '$.algorithm.label'), json_extract(spec, '$.algorithm.name'), ''),
		COALESCE(json_extract(spec, '$.horizon'), 0),
		COALESCE(json_array_length(spec, '$.thresholds'), json_array_length(spec, '$.model.constraints'), 0),
		COALESCE(json_array_length(spec, '$.decision_set.box.bounds'),
			CASE WHEN json_type(actions) IS NOT 'array' THEN json_array_length(spec, '$.parameters') END),
		json_array_length(actions),
		COALESCE(json_array_length(actions, '$[0]'), 0)
	FROM studies WHERE name = ?`, name).Scan(&st.algorithm, &st.horizon, &st.constraints, &boxDim, &actions, &st.dim)
	if err != nil {
		return st, fmt.Errorf("list studies: study %q: %w", name, err)
	}
	if boxDim != nil {
		st.box, st.dim = true, int(*boxDim)
	} else if actions != nil {
		st.actions = int(*actions)
	}
	s.listed.Store(name, st)
	return st, nil
}

// ViewLeases reads a study's leases, ask → end in Unix milliseconds, and
// their digest: FNV-1a over the (ask, end) pairs in the order of the
// asks, 0 for none. Read-only, and apart from the lease transactions,
// which hand asks out: the view only shows the leases.
func (s *Store) ViewLeases(ctx context.Context, name string) (map[int]int64, uint64, error) {
	// A row without a token is an ask handed out again without a lease
	// (kept so that the old holder's heartbeat learns it lost the ask):
	// no lease to show.
	rows, err := s.db.QueryContext(ctx, `SELECT ask, until FROM leases WHERE study = ? AND token != '' ORDER BY ask`, name)
	if err != nil {
		return nil, 0, fmt.Errorf("study %q: read the leases: %w", name, err)
	}
	defer rows.Close()
	var (
		leases map[int]int64
		buf    [16]byte
	)
	h := fnv.New64a()
	for rows.Next() {
		var (
			ask   int
			until int64
		)
		if err := rows.Scan(&ask, &until); err != nil {
			return nil, 0, fmt.Errorf("study %q: read the leases: %w", name, err)
		}
		if leases == nil {
			leases = map[int]int64{}
		}
		leases[ask] = until
		for k := range 8 {
			buf[k], buf[8+k] = byte(uint64(ask)>>(8*k)), byte(uint64(until)>>(8*k))
		}
		h.Write(buf[:])
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("study %q: read the leases: %w", name, err)
	}
	if leases == nil {
		return nil, 0, nil
	}
	return leases, h.Sum64(), nil
}
