package pipeline

import (
	"fmt"
	"io"

	"github.com/perfgate/perfgate/internal/sizes"
	"github.com/perfgate/perfgate/record"
)

// measureSizes measures the package in both test binaries and writes sizes.txt. A measurement that
// fails is reported in Sizes.Error, not as an error.
func (p *pipeline) measureSizes() record.Sizes {
	var got [2]*sizes.Sizes
	for i, s := range []*side{&p.base, &p.head} {
		sz, err := sizes.Measure(s.bin, p.importPath)
		if err != nil {
			return record.Sizes{Sections: []record.SectionSize{}, Symbols: []record.SymbolSize{},
				Error: fmt.Sprintf("measuring %s: %v", s.name, err)}
		}
		got[i] = sz
	}
	d := *sizes.Diff(got[0], got[1])
	if err := p.dir.WriteSizes(func(w io.Writer) error {
		return sizes.WriteBenchfmt(w, got[0], got[1], p.base.rev.Commit, p.head.rev.Commit)
	}); err != nil {
		d.Error = err.Error()
	}
	return d
}
