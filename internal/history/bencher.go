package history

import (
	"encoding/json"
	"strings"

	"github.com/perfgate/perfgate/internal/text"
)

// BencherMetric is one measure of one benchmark in Bencher Metric Format (BMF): the value and, when
// known, the ends of its interval.
type BencherMetric struct {
	Value      float64  `json:"value"`
	LowerValue *float64 `json:"lower_value,omitempty"`
	UpperValue *float64 `json:"upper_value,omitempty"`
}

// Bencher returns one Bencher Metric Format report per recorded commit of the path, by commit: an
// object keyed by benchmark name, then by measure, as `bencher run --adapter json --file FILE
// --hash SHA` reads it (one run per commit). Benchmark names are PKG:NAME (NAME alone for the
// module root's package), through text.Plain. Measures: latency in nanoseconds (Bencher's built-in
// measure) for sec/op; instructions, bytes-per-op, allocs-per-op, bytes-per-second and, for sizes,
// bytes; any other unit by its name.
func (h *History) Bencher() map[string][]byte {
	reports := map[string]map[string]map[string]BencherMetric{}
	for _, s := range h.Series {
		name := s.Name
		if s.Package != "." && s.Package != "" {
			name = s.Package + ":" + s.Name
		}
		name = text.Plain(name)
		measure, scale := bencherMeasure(s.Unit)
		measure = text.Plain(measure)
		for _, p := range s.Points {
			r := reports[p.Commit]
			if r == nil {
				r = map[string]map[string]BencherMetric{}
				reports[p.Commit] = r
			}
			if r[name] == nil {
				r[name] = map[string]BencherMetric{}
			}
			m := BencherMetric{Value: p.Value * scale}
			if p.Lo > 0 && p.Hi > 0 {
				lo, hi := p.Lo*scale, p.Hi*scale
				m.LowerValue, m.UpperValue = &lo, &hi
			}
			r[name][measure] = m
		}
	}
	out := map[string][]byte{}
	for commit, r := range reports {
		data, err := json.MarshalIndent(r, "", "  ") // maps marshal with sorted keys
		if err != nil {
			// maps of strings and floats always marshal
			panic("history: marshalling a Bencher report: " + err.Error())
		}
		out[commit] = append(data, '\n')
	}
	return out
}

// bencherMeasure is the Bencher measure for unit and the factor from unit to it.
func bencherMeasure(unit string) (string, float64) {
	switch unit {
	case "sec/op":
		return "latency", 1e9
	case "instructions/op":
		return "instructions", 1
	case "B/op":
		return "bytes-per-op", 1
	case "allocs/op":
		return "allocs-per-op", 1
	case "B/s":
		return "bytes-per-second", 1
	case "B":
		return "bytes", 1
	}
	return strings.ReplaceAll(unit, "/", "-per-"), 1
}
