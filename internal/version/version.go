package version

import "runtime/debug"

// String is this perfgate's version: its module version ("v1.2.0", or the pseudo-version the go
// command stamps from the VCS), else "devel", followed by the VCS commit it was built from when
// known, shortened to 12 hex digits and marked "-dirty" when the work tree had uncommitted changes:
// "v1.2.0", "devel 0123456789ab-dirty".
func String() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	return format(info)
}

func format(info *debug.BuildInfo) string {
	v := info.Main.Version
	if v == "" || v == "(devel)" {
		v = "devel"
	}
	rev, dirty := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return v
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "-dirty"
	}
	return v + " " + rev
}
