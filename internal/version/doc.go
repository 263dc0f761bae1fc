// Package version says which perfgate is running, for `perfgate version`, the reports and the
// shards' records.
package version
