package record_test

import (
	"encoding/json"
	"fmt"
	"log"

	"github.com/perfgate/perfgate/record"
)

// A script reads result.json, the record of one comparison, with encoding/json and the types of
// this package: here, the verdict and the benchmarks that got slower.
func Example() {
	data := []byte(`{
	  "schema": 1,
	  "package": "./cipher/des",
	  "verdict": {"status": "fail", "exit_code": 1, "reasons": ["1 benchmark slower than +5%"]},
	  "benchmarks": [
	    {"name": "Encrypt/des/single", "unit": "sec/op", "delta_pct": 12.5, "class": "slower"},
	    {"name": "Encrypt/des/batch", "unit": "sec/op", "delta_pct": -0.2, "class": "unchanged"}
	  ]
	}`)
	var r record.Result
	if err := json.Unmarshal(data, &r); err != nil {
		log.Fatal(err)
	}
	fmt.Println(r.Package, r.Verdict.Status, r.Verdict.ExitCode)
	for _, b := range r.Benchmarks {
		if b.Class == record.ClassSlower {
			fmt.Printf("%s %s %+.1f%%\n", b.Name, b.Unit, b.DeltaPct)
		}
	}
	// Output:
	// ./cipher/des fail 1
	// Encrypt/des/single sec/op +12.5%
}
