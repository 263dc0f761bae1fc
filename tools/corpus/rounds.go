package corpus

import (
	"fmt"
	"io"
	"math"
	"regexp"
	"strings"

	"golang.org/x/perf/benchfmt"
)

// RoundRatios reads a perfgate results directory's bench.txt and returns, per benchmark (named as
// perfgate names it) the log ratio head/base of every complete A–B–B–A round of sec/op: log(mean of
// head's runs / mean of base's).
func RoundRatios(r io.Reader, file string) (map[string][]float64, error) {
	type sides struct{ base, head []float64 }
	rounds := map[string]map[string]*sides{} // benchmark → round → values
	var order []string
	br := benchfmt.NewReader(r, file)
	for br.Scan() {
		res, ok := br.Result().(*benchfmt.Result)
		if !ok {
			continue
		}
		v, ok := res.Value("sec/op")
		if !ok {
			continue
		}
		name := benchName(string(res.Name.Full()))
		round, side := res.GetConfig("perfgate-round"), res.GetConfig("perfgate-side")
		if rounds[name] == nil {
			rounds[name] = map[string]*sides{}
			order = append(order, name)
		}
		s := rounds[name][round]
		if s == nil {
			s = &sides{}
			rounds[name][round] = s
		}
		if side == "base" {
			s.base = append(s.base, v)
		} else if side == "head" {
			s.head = append(s.head, v)
		} else {
			return nil, fmt.Errorf("%s: benchmark %s: perfgate-side %q, want base or head", file, name, side)
		}
	}
	if err := br.Err(); err != nil {
		return nil, fmt.Errorf("reading %s: %w", file, err)
	}
	out := map[string][]float64{}
	for _, name := range order {
		for _, s := range rounds[name] {
			if len(s.base) == 2 && len(s.head) == 2 {
				out[name] = append(out[name], math.Log(mean(s.head)/mean(s.base)))
			}
		}
	}
	return out, nil
}

var procsSuffix = regexp.MustCompile(`-[0-9]+$`)

// benchName turns "BenchmarkEncrypt/des-2" into perfgate's "Encrypt/des".
func benchName(full string) string {
	return procsSuffix.ReplaceAllString(strings.TrimPrefix(full, "Benchmark"), "")
}

func mean(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}
