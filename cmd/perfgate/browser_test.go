package main

// report.html opened in a real browser: headless Chromium renders the page that a comparison of the
// demo history wrote, and the test reads what the browser built (its DOM, dumped with --dump-dom),
// what it asked the network for (its NetLog), and a screenshot.

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"image"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/perfgate/perfgate/internal/demo"
	"github.com/perfgate/perfgate/internal/htmlreport"
	"github.com/perfgate/perfgate/internal/proc"
	"github.com/perfgate/perfgate/internal/report"
	"github.com/perfgate/perfgate/internal/results"
	"github.com/perfgate/perfgate/internal/testing/pagecheck"
	"github.com/perfgate/perfgate/internal/testing/testenv"
	"github.com/perfgate/perfgate/record"
	"golang.org/x/net/html"
)

var pictures = flag.Bool("pictures", false, "TestReportInBrowser: write the README's pictures (docs/report.png, docs/comment.png, the forest in docs/report.md) from the demo history")

// chromium returns the path of a Chromium or Chrome binary ($PERFGATE_CHROMIUM, else the usual
// names on PATH), or skips the test.
func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("PERFGATE_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "chrome", "chromium-headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	const msg = "chromium not on PATH: apt-get install chromium, or set PERFGATE_CHROMIUM"
	if testenv.E2E() {
		t.Fatal(msg + " (" + testenv.Var + "=1 makes a missing tool a failure; .ci/run installs it)")
	}
	t.Skip(msg + " (or set " + testenv.Var + "=1 to make this a failure)")
	return ""
}

// page is what the browser made of one HTML file.
type page struct {
	dom      *html.Node
	requests []string // URLs the page asked for, other than file: and data: ones
	shot     image.Image
	png      []byte
}

// browse opens file in headless Chromium, which dumps the DOM it built, takes a width×height
// screenshot and records its NetLog. Host names resolve to nothing (--host-resolver-rules), so a
// request that slipped through could not leave the machine either; the NetLog still shows that it
// was made.
func browse(t *testing.T, file string, width, height int) page {
	t.Helper()
	bin := chromium(t)
	abs, err := filepath.Abs(file)
	if err != nil {
		t.Fatal(err)
	}
	url := "file://" + abs
	dir := t.TempDir()
	run := func(name string, extra ...string) (stdout []byte, requests []string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		netlog := filepath.Join(dir, name+".netlog.json")
		argv := append([]string{bin,
			"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
			"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-extensions",
			"--user-data-dir=" + filepath.Join(dir, name+".profile"), "--host-resolver-rules=MAP * ~NOTFOUND",
			"--log-net-log=" + netlog, "--hide-scrollbars", fmt.Sprintf("--window-size=%d,%d", width, height),
		}, extra...)
		stdout, stderr, err := proc.Run(proc.Command(ctx, dir, nil, append(argv, url)...))
		if err != nil {
			t.Fatalf("chromium: %v\n%s", err, proc.Tail(stderr, 20))
		}
		return stdout, pageRequests(t, netlog)
	}
	shotFile := filepath.Join(dir, "shot.png")
	dump, reqs := run("page", "--dump-dom", "--screenshot="+shotFile)
	dom, err := html.Parse(bytes.NewReader(dump))
	if err != nil {
		t.Fatalf("parsing the dumped DOM: %v", err)
	}
	data, err := os.ReadFile(shotFile)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	return page{dom: dom, requests: reqs, shot: img, png: data}
}

// pageRequests reads a Chromium NetLog and returns the URLs of the requests the page made: URL
// requests started on behalf of a file:// document, other than for file: and data: URLs. The
// browser's own background requests (to its vendor's update and account services) are made for no
// document and are left out.
func pageRequests(t *testing.T, netlog string) []string {
	t.Helper()
	data, err := os.ReadFile(netlog)
	if err != nil {
		t.Fatalf("chromium wrote no NetLog: %v", err)
	}
	var nl struct {
		Constants struct {
			LogEventTypes map[string]int `json:"logEventTypes"`
		} `json:"constants"`
		Events []struct {
			Type   int            `json:"type"`
			Params map[string]any `json:"params"`
		} `json:"events"`
	}
	if err := json.Unmarshal(data, &nl); err != nil {
		t.Fatalf("reading the NetLog: %v", err)
	}
	start, ok := nl.Constants.LogEventTypes["URL_REQUEST_START_JOB"]
	if !ok {
		t.Fatal("the NetLog names no URL_REQUEST_START_JOB events: its format changed")
	}
	var urls []string
	for _, e := range nl.Events {
		if e.Type != start {
			continue
		}
		url, _ := e.Params["url"].(string)
		nik, _ := e.Params["network_isolation_key"].(string)
		site, _ := e.Params["site_for_cookies"].(string)
		if !strings.Contains(nik, "file://") && !strings.Contains(site, "file://") {
			continue
		}
		if strings.HasPrefix(url, "file:") || strings.HasPrefix(url, "data:") {
			continue
		}
		urls = append(urls, url)
	}
	return urls
}

// TestBrowserSeesRequests shows that the network check can fail: a page without a
// Content-Security-Policy that loads an image from a local server is caught making that request.
// The same page under report.html's policy makes none.
func TestBrowserSeesRequests(t *testing.T) {
	chromium(t)
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.NotFound(w, r)
	}))
	defer srv.Close()
	var rendered bytes.Buffer
	if err := htmlreport.HTML(&rendered, &record.Result{Verdict: record.Verdict{Status: record.StatusPass}}, nil, report.Options{}); err != nil {
		t.Fatal(err)
	}
	policy := regexp.MustCompile(`<meta http-equiv="Content-Security-Policy"[^>]*>`).FindString(rendered.String())
	if policy == "" {
		t.Fatal("report.html has no Content-Security-Policy meta tag")
	}
	for _, tc := range []struct {
		name, head string
		want       bool // a request to the server
	}{
		{"no policy", "", true},
		{"report.html's policy", policy, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hits.Store(0)
			file := filepath.Join(t.TempDir(), "canary.html")
			body := `<!DOCTYPE html><html><head>` + tc.head + `</head><body><p>canary</p><img src="` + srv.URL + `/canary.png"></body></html>`
			if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
			p := browse(t, file, 400, 300)
			seen := strings.Contains(strings.Join(p.requests, " "), "/canary.png")
			if seen != tc.want {
				t.Errorf("NetLog shows the request to %s: %v, want %v (requests %q)", srv.URL, seen, tc.want, p.requests)
			}
			if !tc.want && hits.Load() > 0 {
				t.Errorf("the server was hit %d times under the policy", hits.Load())
			}
			if len(pagecheck.Problems(p.dom)) == 0 {
				t.Error("pagecheck found nothing wrong with a page that loads an image")
			}
		})
	}
}

// TestReportInBrowser compares the demo history (base → folded) and a failing variant (base →
// broken, whose differential check fails) with the real pipeline, then opens each report.html in
// Chromium.
func TestReportInBrowser(t *testing.T) {
	chromium(t)
	testenv.Long(t) // runs two comparisons
	repo, err := demo.Materialize(filepath.Join(t.TempDir(), "repo"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, head string
		// the exit code, -1 for pass, fail or inconclusive (the demo's speed verdict depends on the
		// machine)
		code int
	}{
		{"demo", "folded", -1},
		{"broken", "broken", record.ExitFail},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "results")
			args := []string{"compare", "-C", repo.Dir, "-pkg", demo.Package, "-budget", "0", "-rounds", "2", "-benchtime", "20ms",
				"-keys", "64", "-o", out, "base", tc.head}
			if tc.name == "broken" {
				// The demo runs both lanes and traces constant time; the failing variant needs
				// neither.
				args = append(args[:len(args)-2], "-metric", "time", "-constant-time", "off", "base", tc.head)
			}
			if *pictures && tc.name == "demo" {
				// The README's pictures: the demo's benchtime (perfgate demo), compare's default 5
				// rounds.
				args = []string{"compare", "-C", repo.Dir, "-pkg", demo.Package, "-budget", "0", "-rounds", "5", "-benchtime", "50ms",
					"-o", out, "base", tc.head}
			}
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), args, &stdout, &stderr)
			// Two rounds decide the demo's speed verdict by the machine's noise: pass, fail or
			// inconclusive.
			known := code == record.ExitPass || code == record.ExitFail || code == record.ExitInconclusive
			if !known || tc.code >= 0 && code != tc.code {
				t.Fatalf("perfgate %s: exit code %d\n%s", strings.Join(args, " "), code, stderr.String())
			}
			res, err := results.ReadResult(out)
			if err != nil {
				t.Fatal(err)
			}
			p := browse(t, filepath.Join(out, results.FileReportHTML), 1200, 1600)
			checkReportPage(t, p, res)
			if dir := os.Getenv("PERFGATE_SCREENSHOTS"); dir != "" {
				if err := os.WriteFile(filepath.Join(dir, tc.name+".png"), p.png, 0o644); err != nil {
					t.Error(err)
				}
			}
			md, err := os.ReadFile(filepath.Join(out, "report.md"))
			if err != nil {
				t.Fatal(err)
			}
			comment := browse(t, writeCommentPage(t, t.TempDir(), md), 900, 1100)
			checkCommentPage(t, comment, string(res.Verdict.Status))
			if *pictures && tc.name == "demo" {
				writePictures(t, md, p, comment)
			}
		})
	}
}

// checkReportPage checks the page the browser rendered from res: the verdict, one forest mark per
// benchmark with a paired estimate, a timeline of every sample, the differential, nothing fetched,
// and a screenshot that is not blank.
func checkReportPage(t *testing.T, p page, res *record.Result) {
	t.Helper()
	if len(p.requests) > 0 {
		t.Errorf("the page made requests: %q", p.requests)
	}
	if problems := pagecheck.Problems(p.dom); len(problems) > 0 {
		t.Errorf("the rendered page could reach the network:\n%s", strings.Join(problems, "\n"))
	}

	banner := pagecheck.FindAll(p.dom, func(n *html.Node) bool { return pagecheck.Attr(n, "id") == "verdict" })
	if len(banner) != 1 || !pagecheck.HasClass(banner[0], string(res.Verdict.Status)) {
		t.Errorf("no verdict banner of class %q", res.Verdict.Status)
	} else if text := pagecheck.Text(banner[0]); !strings.Contains(text, "perfgate: "+strings.ToUpper(string(res.Verdict.Status))) {
		t.Errorf("banner says %q", text)
	}

	var gated, withEstimate []string
	// of each gated benchmark: the same machine code on both sides, so not timed
	var sameCode []bool
	for _, b := range res.Benchmarks {
		if b.Unit == record.UnitTime {
			gated = append(gated, b.Name)
			sameCode = append(sameCode, b.SameCode)
			if b.Paired != nil {
				withEstimate = append(withEstimate, b.Name)
			}
		}
	}
	if len(withEstimate) == 0 {
		t.Fatal("the comparison produced no paired estimates: nothing to plot")
	}
	// One forest per lane that ran: sec/op, and instructions/op where the instruction-count lane
	// ran too (metric auto, the default, where valgrind is installed). The first is sec/op's.
	wantForests := 1
	if slices.ContainsFunc(res.Benchmarks, func(b record.Benchmark) bool { return b.Unit == record.UnitInstructions }) {
		wantForests = 2
	}
	forests := pagecheck.FindAll(p.dom, pagecheck.Element("svg", "forest"))
	if len(forests) != wantForests {
		t.Fatalf("%d forest plots in the rendered page, want %d", len(forests), wantForests)
	}
	marks := pagecheck.FindAll(forests[0], pagecheck.Element("circle", "mark"))
	rows := pagecheck.FindAll(forests[0], pagecheck.Element("g", "row"))
	if len(marks) != len(withEstimate) || len(rows) != len(gated) {
		t.Errorf("forest: %d marks in %d rows, want %d marks (one per benchmark with a paired estimate) in %d rows",
			len(marks), len(rows), len(withEstimate), len(gated))
	}
	for _, m := range marks {
		if pagecheck.Attr(m, "cx") == "" || pagecheck.Attr(m, "cy") == "" {
			t.Errorf("a mark without a position: %v", m.Attr)
		}
	}

	// Every sec/op sample of bench.txt is a point on its benchmark's timeline: 2 sides × 2 slots ×
	// rounds.
	perBench := 4 * res.Method.Rounds
	sections := pagecheck.FindAll(p.dom, pagecheck.Element("section", "bench"))
	if len(sections) != len(gated) {
		t.Errorf("%d benchmark sections, want %d", len(sections), len(gated))
	}
	untimed, wantUntimed := 0, 0
	for _, same := range sameCode {
		if same {
			wantUntimed++
		}
	}
	for _, s := range sections {
		timelines := pagecheck.FindAll(s, pagecheck.Element("svg", "samples"))
		if len(timelines) == 0 && strings.Contains(pagecheck.Text(s), record.NoteSameCode) {
			// the same machine code on both sides, not timed: no samples to draw, and it says why
			untimed++
			continue
		}
		if len(timelines) == 0 {
			t.Errorf("section %q has no timeline", pagecheck.Attr(s, "id"))
			continue
		}
		base := pagecheck.FindAll(timelines[0], pagecheck.Element("circle", "base"))
		head := pagecheck.FindAll(timelines[0], pagecheck.Element("rect", "head"))
		if len(base)+len(head) != perBench || len(base) != len(head) {
			t.Errorf("section %q: %d base and %d head samples, want %d of each", pagecheck.Attr(s, "id"), len(base), len(head), perBench/2)
		}
	}

	if untimed != wantUntimed {
		t.Errorf("%d sections say %q and have no timeline, want %d (the benchmarks of the same machine code)",
			untimed, record.NoteSameCode, wantUntimed)
	}

	diff := pagecheck.FindAll(p.dom, func(n *html.Node) bool { return pagecheck.Attr(n, "id") == "differential" })
	if len(diff) != 1 {
		t.Error("no differential section")
	}
	marked := pagecheck.FindAll(p.dom, pagecheck.Element("mark", ""))
	switch res.Differential.Status {
	case record.DiffMismatch:
		if len(marked) == 0 {
			t.Error("a mismatch, but no differing bytes are marked in the examples")
		}
	case record.DiffIdentical:
		if len(marked) != 0 {
			t.Errorf("identical outputs, but %d marked bytes", len(marked))
		}
	}

	// The screenshot is the window's size and not blank: the banner, the plot and the text give it
	// many colours.
	if b := p.shot.Bounds(); b.Dx() != 1200 || b.Dy() != 1600 {
		t.Errorf("screenshot of %v, want 1200×1600", b)
	}
	colours := map[[4]uint32]bool{}
	b := p.shot.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 3 {
		for x := b.Min.X; x < b.Max.X; x += 3 {
			r, g, bl, a := p.shot.At(x, y).RGBA()
			colours[[4]uint32{r, g, bl, a}] = true
		}
	}
	if len(colours) < 50 {
		t.Errorf("the screenshot has %d colours: blank or nearly", len(colours))
	}
}

// writePictures writes the README's pictures from the demo comparison: docs/report.png, the top of
// the HTML report as Chromium renders it, docs/comment.png, the top of the comment (report.md) as
// GitHub would render it, and the forest plot of the comment between the forest markers of
// docs/report.md.
func writePictures(t *testing.T, md []byte, report, comment page) {
	t.Helper()
	root := filepath.Join("..", "..")
	for name, p := range map[string]page{"report.png": report, "comment.png": comment} {
		if err := os.WriteFile(filepath.Join(root, "docs", name), p.png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	forest := regexp.MustCompile("(?s)```text\n[^\n]*head/base.*?\n```\n").Find(md)
	if forest == nil {
		t.Fatal("no forest plot in report.md")
	}
	readme := filepath.Join(root, "docs", "report.md")
	text, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	const begin, end = "<!-- forest:begin -->\n", "<!-- forest:end -->"
	i, j := bytes.Index(text, []byte(begin)), bytes.Index(text, []byte(end))
	if i < 0 || j < i {
		t.Fatalf("docs/report.md has no %q … %q section", strings.TrimSpace(begin), end)
	}
	updated := string(text[:i+len(begin)]) + string(forest) + string(text[j:])
	if err := os.WriteFile(readme, []byte(updated), 0o644); err != nil {
		t.Fatal(err)
	}
}
