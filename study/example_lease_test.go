package study_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/safegp/safegp/store"
	"github.com/safegp/safegp/study"
	"github.com/safegp/safegp/study/api"
	"github.com/safegp/safegp/study/exchange"
)

// A worker's lease ends and the ask goes to another worker: the first
// worker's heartbeat names its lease token and is refused, rather than
// take the ask back; the holder's renews the lease and keeps its token.
func ExampleService_Heartbeat() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "safegp-example-*")
	defer os.RemoveAll(dir)
	st, _ := store.Open(filepath.Join(dir, "studies.db"), store.OpenOptions{Create: true})
	defer st.Close()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	v := study.NewService(st, study.ServiceOptions{Now: func() time.Time { return now }})
	spec, _ := study.ParseSpec([]byte(specYAML))
	res, _ := spec.Resolve(".")
	if err := v.Create(ctx, "gains", res); err != nil {
		panic(err)
	}
	a, _ := v.AskBatch(ctx, "gains", api.AskOptions{LeaseSeconds: 1})   // worker A
	now = now.Add(2 * time.Second)                                      // A's lease has ended
	b, _ := v.AskBatch(ctx, "gains", api.AskOptions{LeaseSeconds: 600}) // worker B
	fmt.Println("same ask:", a[0].Ask == b[0].Ask, "new token:", a[0].Lease != b[0].Lease)

	_, err := v.Heartbeat(ctx, "gains", &api.HeartbeatRequest{Ask: a[0].Ask, LeaseSeconds: 600, Lease: a[0].Lease})
	fmt.Println(errors.Is(err, store.ErrLeaseLost), strings.SplitN(err.Error(), ";", 2)[0])
	hb, _ := v.Heartbeat(ctx, "gains", &api.HeartbeatRequest{Ask: b[0].Ask, LeaseSeconds: 60, Lease: b[0].Lease})
	fmt.Println(hb.LeaseUntil, hb.Lease == b[0].Lease)
	// Output:
	// same ask: true new token: true
	// true lease lost: ask 1 of study "gains" was handed to another caller at 2026-03-01T12:00:02.000Z, after your lease ended
	// 2026-03-01T12:01:02.000Z true
}

// An import file is read against the study's columns: a misspelt context
// variable is named, with what the study takes.
func ExampleParseImportCSV() {
	cols := &study.Columns{Dim: 1, Context: []string{"temperature", "load"}, Constraints: 1}
	_, err := exchange.ParseImportCSV(strings.NewReader("x1,temp,load,f,g1\n0.5,21,0.3,-1.2,0.4\n"), cols)
	fmt.Println(err)
	rows, _ := exchange.ParseImportCSV(strings.NewReader("x1,load,temperature,f,g1,noise_std\n0.5,0.3,21,-1.2,0.4,\n"), cols)
	fmt.Println(rows[0].X, rows[0].Context, *rows[0].F, rows[0].G, rows[0].NoiseStd)
	// Output:
	// invalid import: header: column temp is not a context variable (temperature, load; want x1,temperature,load,f,g1[,noise_std])
	// [0.5] map[load:0.3 temperature:21] -1.2 [0.4] <nil>
}
