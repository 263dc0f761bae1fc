package htmlreport

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/perfgate/perfgate/internal/benchtxt"
	"github.com/perfgate/perfgate/internal/report"
	"github.com/perfgate/perfgate/internal/testing/pagecheck"
	"github.com/perfgate/perfgate/internal/testing/reportfixture"
	"github.com/perfgate/perfgate/record"
	"golang.org/x/net/html"
)

// abbaSamples returns two rounds of A B B A samples of name: base takes base+drift·i, head
// head+drift·i, where i is the run's position, so that a linear drift runs through the whole
// sequence; instructions/op is exact and allocs/op constant.
func abbaSamples(name string, base, head, drift float64) []benchtxt.Sample {
	var ss []benchtxt.Sample
	i := 0
	for round := range 2 {
		for slot, side := range []record.Side{record.Base, record.Head, record.Head, record.Base} {
			v, instr := base, 1000.0
			if side == record.Head {
				v, instr = head, 900
			}
			ss = append(ss, benchtxt.Sample{Name: name, Side: side, Round: round, Slot: slot, Iters: 1000,
				Values: []benchtxt.Value{{Value: v + drift*float64(i), Unit: "sec/op"}, {Value: instr, Unit: "instructions/op"},
					{Value: 1, Unit: "allocs/op"}, {Value: 8 / v, Unit: "B/s"}}})
			i++
		}
	}
	return ss
}

// render renders r as HTML and parses it back.
func render(t *testing.T, r *record.Result, samples []benchtxt.Sample) (string, *html.Node) {
	t.Helper()
	var b bytes.Buffer
	if err := HTML(&b, r, samples, report.Options{}); err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	return b.String(), doc
}

var (
	attr     = pagecheck.Attr
	hasClass = pagecheck.HasClass
	findAll  = pagecheck.FindAll
	textOf   = pagecheck.Text
)

func TestHTMLForestHasOneMarkPerBenchmark(t *testing.T) {
	r := reportfixture.Fail()
	_, doc := render(t, r, nil)
	forests := findAll(doc, func(n *html.Node) bool { return n.Data == "svg" && hasClass(n, "forest") })
	if len(forests) != 1 {
		t.Fatalf("%d Forest plots, want 1 (sec/op)", len(forests))
	}
	var withEstimate, all []string
	for _, b := range r.Benchmarks {
		if b.Unit == record.UnitTime {
			all = append(all, b.Name)
			if b.Paired != nil {
				withEstimate = append(withEstimate, b.Name)
			}
		}
	}
	rows := findAll(forests[0], func(n *html.Node) bool { return hasClass(n, "row") })
	marks := findAll(forests[0], func(n *html.Node) bool { return n.Data == "circle" && hasClass(n, "mark") })
	if len(rows) != len(all) || len(marks) != len(withEstimate) {
		t.Errorf("%d rows and %d marks, want %d rows (every sec/op benchmark) and %d marks (those with a paired estimate)",
			len(rows), len(marks), len(all), len(withEstimate))
	}
	// Slowest first: the marks' x grow down the rows as the ratios fall.
	var names []string
	for _, row := range rows {
		names = append(names, attr(row, "data-bench"))
	}
	want := []string{"Decrypt/3des-eee3/single", "NewCipher/des", "NewTripleEDE3", "EncryptBlocks/des/4KiB",
		"Encrypt/3des-ede3/single", "Decrypt/des/single", "Encrypt/des/single"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("forest rows (-want +got):\n%s", diff)
	}
}

func TestHTMLTimelineInRunOrder(t *testing.T) {
	r := reportfixture.Pass()
	name := r.Benchmarks[0].Name
	samples := abbaSamples(name, 140e-9, 87e-9, 1e-9)
	_, doc := render(t, r, samples)
	sections := findAll(doc, func(n *html.Node) bool { return n.Data == "section" && hasClass(n, "bench") })
	if len(sections) != 6 { // six names among the nine comparisons
		t.Fatalf("%d benchmark sections, want 6", len(sections))
	}
	sec := sections[0]
	if got := textOf(findAll(sec, func(n *html.Node) bool { return n.Data == "h3" })[0]); !strings.HasPrefix(got, name) {
		t.Errorf("first section is %q, want %s", got, name)
	}
	svgs := findAll(sec, func(n *html.Node) bool { return n.Data == "svg" && hasClass(n, "samples") })
	var units []string
	for _, s := range svgs {
		units = append(units, attr(s, "aria-label"))
	}
	// Time first, then instructions beside it; allocs/op is constant (a sentence), B/s repeats time
	// (left out).
	if diff := cmp.Diff([]string{"samples of sec/op in run order", "samples of instructions/op in run order"}, units); diff != "" {
		t.Errorf("timelines (-want +got):\n%s", diff)
	}
	if !strings.Contains(textOf(sec), "The same in every sample: allocs/op 1.") {
		t.Errorf("no sentence for the constant allocs/op in %q", textOf(sec))
	}
	points := findAll(svgs[0], func(n *html.Node) bool { return hasClass(n, "sample") })
	var sides []string
	for _, p := range points {
		side := "base"
		if hasClass(p, "head") {
			side = "head"
		}
		sides = append(sides, side)
	}
	abba := []string{"base", "head", "head", "base", "base", "head", "head", "base"}
	if diff := cmp.Diff(abba, sides); diff != "" {
		t.Errorf("sample order (-want +got):\n%s", diff)
	}
	if len(findAll(svgs[0], func(n *html.Node) bool { return n.Data == "text" && hasClass(n, "rlabel") })) != 2 {
		t.Error("want two round labels")
	}
	// Drift: base's last sample (the slowest, 147 ns) is drawn above its first (140 ns).
	first, last := attr(points[0], "cy"), attr(points[7], "cy")
	if !(atof(t, last) < atof(t, first)) {
		t.Errorf("base's last sample at y=%s, first at y=%s: want the slower one higher", last, first)
	}
}

func atof(t *testing.T, s string) float64 {
	t.Helper()
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("not a number: %q", s)
	}
	return f
}

func TestHTMLEscapesEverythingFromHead(t *testing.T) {
	r := reportfixture.HostileResult()
	samples := abbaSamples(reportfixture.Hostile, 140e-9, 87e-9, 0)
	page, doc := render(t, r, samples)
	for _, tag := range []string{"b", "img", "script", "details"} {
		if n := findAll(doc, func(n *html.Node) bool { return n.Data == tag }); len(n) > 0 && tag != "details" {
			t.Errorf("a <%s> element from the pull request reached the page", tag)
		}
	}
	// The page's own <details> hold failures and test output; hostile text must not add any.
	want := len(r.Failures) + 1
	if n := len(findAll(doc, func(n *html.Node) bool { return n.Data == "details" })); n != want {
		t.Errorf("%d <details>, want %d", n, want)
	}
	if !strings.Contains(textOf(doc), "<b>x</b>|*y*") {
		t.Error("the hostile benchmark name is not shown as text")
	}
	for _, bad := range []string{"<img src=x", "<script>alert", "\x1b"} {
		if strings.Contains(page, bad) {
			t.Errorf("raw %q in the page", bad)
		}
	}
}

func TestHTMLIsSelfContained(t *testing.T) {
	for name, r := range map[string]*record.Result{"pass": reportfixture.Pass(), "fail": reportfixture.Fail(), "hostile": reportfixture.HostileResult()} {
		t.Run(name, func(t *testing.T) {
			_, doc := render(t, r, abbaSamples(r.Benchmarks[0].Name, 1e-7, 2e-7, 0))
			if problems := pagecheck.Problems(doc); len(problems) > 0 {
				t.Errorf("the page could reach the network:\n%s", strings.Join(problems, "\n"))
			}
		})
	}
}

func TestOfflineProblemsFindsRequests(t *testing.T) {
	// The check itself must be able to fail.
	page := `<html><head><link rel=stylesheet href="https://x.example/a.css"><style>p{background:url(http://x.example/b.png)}</style></head>
<body><img src="//x.example/c.png"><svg><image href="http://x.example/d.png"></image></svg><p style="background:url(e.png)">x</p><a href="#ok">ok</a></body></html>`
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(pagecheck.Problems(doc), "\n")
	for _, want := range []string{"no Content-Security-Policy", "<link> element", `<link href="https://x.example/a.css">`,
		"<style> with url()", "<img> element", `<img src="//x.example/c.png">`, "<image> element",
		`<p style="background:url(e.png)">`} {
		if !strings.Contains(got, want) {
			t.Errorf("missed %s; found:\n%s", want, got)
		}
	}
	if strings.Contains(got, "#ok") {
		t.Errorf("an in-page anchor is not a request:\n%s", got)
	}
}

func TestHexDiff(t *testing.T) {
	base, head := hexDiff("3fa40e8a984d4815", "3fa40e8b984d0015")
	want := func(segs ...string) []hexSeg {
		var out []hexSeg
		for i, s := range segs {
			out = append(out, hexSeg{Text: s, Diff: i%2 == 1})
		}
		return out
	}
	if diff := cmp.Diff(want("3fa40e", "8a", "984d", "48", "15"), base); diff != "" {
		t.Errorf("base (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want("3fa40e", "8b", "984d", "00", "15"), head); diff != "" {
		t.Errorf("head (-want +got):\n%s", diff)
	}
}

func TestHTMLWithoutBenchmarksOrSamples(t *testing.T) {
	r := &record.Result{Schema: record.Schema, Verdict: record.Verdict{Status: record.StatusError,
		ExitCode: record.ExitCannotRun, Reasons: []string{"base does not build"}}}
	_, doc := render(t, r, nil)
	if n := len(findAll(doc, pagecheck.Element("svg", ""))); n != 0 {
		t.Errorf("%d plots for a comparison that compared nothing", n)
	}
	text := textOf(doc)
	for _, want := range []string{"perfgate: ERROR", "base does not build", "No benchmarks were compared.", "Sizes were not measured."} {
		if !strings.Contains(text, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if problems := pagecheck.Problems(doc); len(problems) > 0 {
		t.Errorf("problems: %v", problems)
	}
}

// TestHTMLDifferentialFamilies: the differential section names each constructor's family, what
// differed in an AEAD's mismatch, head's inconsistencies and the constructors' notes.
func TestHTMLDifferentialFamilies(t *testing.T) {
	page, _ := render(t, reportfixture.Fail(), nil)
	for _, want := range []string{
		"<td>aead</td>", "<td>hash</td>", "16 · nonce 12", "8 keys, 5 lengths, 40 messages", "17 bytes</td><td>tag",
		"nonce cafebabefacedbaddecaf888", "head inconsistent on 2", "A side disagrees with itself",
		"NewMAC  head  key size 10", "56 more size pairs accepted by both sides were not compared",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
}

// TestRoundLabels: the round labels of a timeline never overlap: "round N" while there is room,
// else numbers on every k-th round, each with at least the room a number needs.
func TestRoundLabels(t *testing.T) {
	for _, n := range []int{1, 5, 7, 8, 12, 40, 100} {
		rounds := make([]svgRound, n)
		for i := range rounds {
			rounds[i].Label = "round " + strconv.Itoa(i+1)
		}
		width := tlW - tlLeft - tlRight
		labelRounds(rounds, width)
		last, labels := -1, 0
		for i, r := range rounds {
			if r.Label == "" {
				continue
			}
			labels++
			w := roundNumberW
			if strings.HasPrefix(r.Label, "round ") {
				w = roundLabelW
			}
			if last >= 0 && float64(i-last)*width/float64(n) < w {
				t.Errorf("%d rounds: labels %q and %q are %.1f apart, need %.0f", n, rounds[last].Label, r.Label,
					float64(i-last)*width/float64(n), w)
			}
			last = i
		}
		if labels == 0 || rounds[0].Label == "" {
			t.Errorf("%d rounds: no label on the first round", n)
		}
	}
}
