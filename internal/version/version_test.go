package version

import (
	"runtime/debug"
	"testing"
)

func TestFormat(t *testing.T) {
	vcs := func(rev, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
	}
	const rev = "0123456789abcdef0123456789abcdef01234567"
	for _, tt := range []struct {
		version  string
		settings []debug.BuildSetting
		want     string
	}{
		{"v1.2.0", nil, "v1.2.0"},
		{"(devel)", nil, "devel"},
		{"", nil, "devel"},
		{"(devel)", vcs(rev, "false"), "devel 0123456789ab"},
		{"(devel)", vcs(rev, "true"), "devel 0123456789ab-dirty"},
		{"v0.0.0-20261201193754-0123456789ab", vcs(rev, "false"), "v0.0.0-20261201193754-0123456789ab 0123456789ab"},
	} {
		info := &debug.BuildInfo{Main: debug.Module{Version: tt.version}, Settings: tt.settings}
		if got := format(info); got != tt.want {
			t.Errorf("format(%q, %v) = %q, want %q", tt.version, tt.settings, got, tt.want)
		}
	}
}
