package results

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestHeadTail(t *testing.T) {
	small := []byte("short log\n")
	if got := HeadTail(small, 100); string(got) != string(small) {
		t.Errorf("HeadTail of a short log = %q", got)
	}
	var b []byte
	for i := range 1000 {
		b = fmt.Appendf(b, "line %04d é\n", i)
	}
	got := string(HeadTail(b, 1000))
	if !strings.HasPrefix(got, "line 0000 é\n") || !strings.HasSuffix(got, "line 0999 é\n") {
		t.Errorf("HeadTail lost an end:\n%s", got)
	}
	if !strings.Contains(got, "bytes left out") || len(got) > 1000+100 {
		t.Errorf("HeadTail kept %d bytes, want about 1000 and a note", len(got))
	}
	if !utf8.ValidString(got) {
		t.Errorf("HeadTail cut inside a character")
	}
}
