package mdreport

import (
	"fmt"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/internal/htmlreport"
	"github.com/perfgate/perfgate/internal/report"
	"github.com/perfgate/perfgate/record"
)

func whyFixture(name string, class record.Class) record.Why {
	return record.Why{Name: name, Class: class, Unit: "instructions/op", BaseCount: 1352, HeadCount: 1487,
		Lines: []record.WhyLine{
			{File: "example.com/xtea/xtea.go", Line: 53, BaseLine: 51, Func: "example.com/xtea.(*Cipher).Encrypt",
				Base: 200, Head: 296, Share: 96.0 / 135},
			{File: "example.com/xtea/xtea.go", Line: 40, Func: "example.com/xtea.(*Cipher).Encrypt",
				Inlined: "example.com/xtea.(*Cipher).round", Base: 0, Head: 30, Share: 30.0 / 135},
			{File: "example.com/xtea/other.go", Line: 7, BaseLine: 7, Func: "example.com/xtea.helper",
				Base: 10, Head: 28, Share: 18.0 / 135},
			{File: "example.com/xtea/xtea.go", BaseLine: 38, Func: "example.com/xtea.(*Cipher).Encrypt",
				Base: 9, Head: 0, Share: -9.0 / 135},
		},
		Compiler: []string{"(*Cipher).round is no longer inlined into (*Cipher).Encrypt (cost 81 > 80)"},
	}
}

func TestWhyMarkdown(t *testing.T) {
	r := &record.Result{Verdict: record.Verdict{Status: record.StatusFail},
		Why: []record.Why{whyFixture("Encrypt/single", record.ClassSlower)}}
	md := Markdown(r, report.Options{})
	for _, want := range []string{
		"### Why it changed",
		"**Encrypt/single (slower) · instructions/op 1,352 → 1,487 (+135, +10.0%)**",
		"- xtea.go:53 xtea.(\\*Cipher).Encrypt +96 instructions/op (71%)",
		"- xtea.go:40 xtea.(\\*Cipher).round inlined into xtea.(\\*Cipher).Encrypt +30 instructions/op (22%)",
		"- other.go:7 xtea.helper +18 instructions/op (13%)",
		"- compiler: (\\*Cipher).round is no longer inlined into (\\*Cipher).Encrypt (cost 81 &gt; 80)",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("missing %q in\n%s", want, md)
		}
	}
	// Only the top three lines: the removed line of base (−9) is the fourth largest change.
	if strings.Contains(md, "removed") {
		t.Errorf("a fourth line in the comment:\n%s", md)
	}
	var text strings.Builder
	if err := report.Text(&text, r, report.Options{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "xtea.go:53 xtea.(*Cipher).Encrypt +96 instructions/op (71%)") {
		t.Errorf("terminal output lacks the top line:\n%s", text.String())
	}
}

// TestWhyReplaced: when the top line's code ran only in base, the item after it names head's code
// that replaced it (highwayhash-avx2 in the corpus), escaped as the rest.
func TestWhyReplaced(t *testing.T) {
	w := whyFixture("Sum64_8", record.ClassFaster)
	w.Lines[0].Func, w.Lines[0].Line, w.Lines[0].Head = "github.com/minio/highwayhash.finalizeSSE4.abi0", 0, 0
	w.Replaced = &record.WhyReplaced{Func: "github.com/minio/highwayhash.finalizeSSE4.abi0", Base: 172,
		By: "github.com/minio/highwayhash.finalize_AVX2*.abi0", Head: 81}
	md := Markdown(&record.Result{Why: []record.Why{w}}, report.Options{})
	want := "- replaced: highwayhash.finalizeSSE4.abi0 (base only, 172) → highwayhash.finalize\\_AVX2\\*.abi0 " +
		"(head only, 81 instructions/op)"
	if !strings.Contains(md, want) {
		t.Errorf("missing %q in\n%s", want, md)
	}
	if i, j := strings.Index(md, "(base; removed)"), strings.Index(md, "- replaced:"); i < 0 || j < i {
		t.Errorf("the replacement is not right after the top line:\n%s", md)
	}
}

func TestWhyHostileNames(t *testing.T) {
	const evil = "<img src=x onerror=alert(1)>`|@team ::error::x"
	w := whyFixture("Encrypt", record.ClassSlower)
	w.Lines[0].File = "example.com/" + evil + ".go"
	w.Lines[0].Func = "example.com/x." + evil
	w.Compiler = []string{evil}
	w.Replaced = &record.WhyReplaced{Func: "example.com/x." + evil, Base: 1, By: "example.com/x." + evil, Head: 2}
	r := &record.Result{Why: []record.Why{w}}
	md := Markdown(r, report.Options{})
	if strings.Contains(md, "<img") || strings.Contains(md, "@team") || strings.Contains(md, "`|") {
		t.Errorf("hostile text reached the comment unescaped:\n%s", md)
	}
	var html strings.Builder
	if err := htmlreport.HTML(&html, r, nil, report.Options{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(html.String(), "<img src=x") {
		t.Error("hostile text reached report.html unescaped")
	}
	if !strings.Contains(html.String(), "&lt;img src=x onerror=alert(1)&gt;") {
		t.Error("report.html lacks the escaped function name")
	}
}

// Forty changed benchmarks: one short block each, and the comment within GitHub's limit.
func TestWhyFortyChangedFits(t *testing.T) {
	r := &record.Result{Verdict: record.Verdict{Status: record.StatusFail}}
	for i := 0; i < 40; i++ {
		name := fmt.Sprintf("Encrypt/variant-%02d", i)
		r.Benchmarks = append(r.Benchmarks, record.Benchmark{Name: name, Unit: "sec/op", Class: record.ClassSlower,
			Paired: &record.Paired{Ratio: 1.1, Lo: 1.05, Hi: 1.15, Rounds: 10}})
		w := whyFixture(name, record.ClassSlower)
		w.Replaced = &record.WhyReplaced{Func: "example.com/xtea.(*Cipher).encryptSSE4", Base: 172,
			By: "example.com/xtea.(*Cipher).encryptAVX2", Head: 81}
		r.Why = append(r.Why, w)
	}
	md := Markdown(r, report.Options{})
	if len(md) > MaxBody {
		t.Fatalf("comment of %d characters, over %d", len(md), MaxBody)
	}
	if n := strings.Count(md, "(slower) · instructions/op"); n != 40 {
		t.Errorf("%d benchmark blocks, want 40", n)
	}
	if n := strings.Count(md, "+96 instructions/op (71%)"); n != 40 {
		t.Errorf("%d top lines, want one per benchmark (40)", n)
	}
}
