package pipeline

import (
	"github.com/perfgate/perfgate/internal/sarif"
	"github.com/perfgate/perfgate/internal/version"
	"github.com/perfgate/perfgate/record"
)

// writeConstantTimeSARIF writes the constant-time findings as consttime.sarif, for code scanning:
// whenever the check ran, a check that could not trace included (its log says why and has no
// results).
func (p *pipeline) writeConstantTimeSARIF(ct *record.ConstantTime) error {
	log, err := sarif.ConstantTime(ct, sarif.Options{Version: version.String()})
	if err != nil {
		return err
	}
	return p.dir.WriteConstantTimeSARIF(log)
}
