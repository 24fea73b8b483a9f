package api

import (
	"encoding/json"
	"testing"

	"github.com/safegp/safegp/space"
)

// TestAnswerJSON pins the three shapes an ask answer and the two a tell
// answer take: a finite set's with its index, a box's (Index −1) without,
// and a study stated in parameters' (Params set) in trials and settings.
func TestAnswerJSON(t *testing.T) {
	t.Parallel()
	trial := 3
	best := &Best{Trial: &trial, Params: space.Setting{"gain": space.Number(2)}, Values: map[string]float64{"speed": 4}}
	cases := []struct {
		name string
		v    any
		want string
	}{
		{"ask on a finite set", AskAnswer{Ask: 2, Index: 5, X: []float64{0.5}}, `{"ask":2,"index":5,"x":[0.5]}`},
		{"ask on a box", AskAnswer{Ask: 2, Index: -1, X: []float64{0.5}, Lease: "ab"}, `{"ask":2,"x":[0.5],"lease":"ab"}`},
		{"ask in parameters", AskAnswer{Ask: 2, Index: -1, X: []float64{0.5}, Trial: 4, Params: space.Setting{"gain": space.Number(1)}, Best: best},
			`{"ask":2,"trial":4,"params":{"gain":1},"best":{"trial":3,"params":{"gain":2},"values":{"speed":4}}}`},
		{"tell", TellAnswer{Observation: 7, Index: 1, Violation: true, Violated: []int{2}, Rounds: 3},
			`{"observation":7,"index":1,"violation":true,"violated":[2],"rounds":3}`},
		{"tell in parameters", TellAnswer{Observation: 7, Trial: &trial, Violation: true, ViolatedObjective: true, Violated: []int{2}, Rounds: 3, Outcomes: []string{"speed", "temp", "current"}},
			`{"observation":7,"trial":3,"violation":true,"violated":["speed","current"],"rounds":3,"best":null}`},
	}
	for _, c := range cases {
		got, err := json.Marshal(c.v)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if string(got) != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
	}
}

// TestBestRoundTrip: a best read back from its JSON is the best written,
// in both shapes (the command line's --server reads the server's).
func TestBestRoundTrip(t *testing.T) {
	t.Parallel()
	trial := 1
	for _, b := range []Best{
		{Index: 4, X: []float64{0.25}, LowerF: -1.5, MeanF: 0.5},
		{Trial: &trial, Params: space.Setting{"mode": space.String("fast")}, Values: map[string]float64{"f": 1}},
	} {
		data, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		var back Best
		if err := json.Unmarshal(data, &back); err != nil {
			t.Fatal(err)
		}
		again, _ := json.Marshal(back)
		if string(again) != string(data) {
			t.Errorf("round trip: %s became %s", data, again)
		}
	}
}
