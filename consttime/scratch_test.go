package consttime

import (
	"context"
	"encoding/json"
	"os"
	"testing"
)

func TestScratch(t *testing.T) {
	ct, err := Check(context.Background(), Config{BaseDir: os.Getenv("CT_BASE"), HeadDir: os.Getenv("CT_HEAD"), Pkg: os.Getenv("CT_PKG"), Log: os.Stderr, WorkDir: "/tmp/ct-probe/w"})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.MarshalIndent(ct, "", " ")
	os.WriteFile("/tmp/ct-probe/out.json", b, 0o644)
}
