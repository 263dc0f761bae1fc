package bench

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPlainWarnings(t *testing.T) {
	// The messages are benchmath's own (golang.org/x/perf/benchmath, anone.go), at a budgeted run's
	// level.
	need9 := errors.New("need >= 9 samples for confidence interval at level 0.9928571428571429")
	needMore := errors.New("need > 4 samples for confidence interval at level 0.9")
	test := errors.New("need >= 4 samples to detect a difference at alpha level 0.05")
	other := errors.New("exact distribution expected, but values range from 1 to 2")
	for _, tt := range []struct {
		name         string
		base, head   []error
		nBase, nHead int
		cmp          []error
		want         []string
	}{
		{"both sides alike", []error{need9}, []error{need9}, 4, 4, nil,
			[]string{"too few samples for an interval at 99.29%: 4 per side, 9 needed"}},
		{"sides differ", []error{need9}, []error{need9}, 4, 3, nil, []string{
			"too few samples for an interval at 99.29%: base has 4, 9 needed",
			"too few samples for an interval at 99.29%: head has 3, 9 needed",
		}},
		{"more than", nil, []error{needMore}, 4, 4, nil,
			[]string{"too few samples for an interval at 90%: 4 per side, 5 needed"}},
		{"the test", nil, nil, 3, 3, []error{test},
			[]string{"too few samples for benchstat's test to reach p < 0.05: 3 and 3, 4 per side needed"}},
		{"unknown kept", []error{other}, nil, 4, 4, nil, []string{other.Error()}},
		{"none", nil, nil, 10, 10, nil, nil},
	} {
		got := plainWarnings(tt.base, tt.head, tt.nBase, tt.nHead, tt.cmp)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}
