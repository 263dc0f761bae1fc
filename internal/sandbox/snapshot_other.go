//go:build !linux

package sandbox

import "errors"

// snapshot is unavailable here: copies of the working directory are made fresh for every child.
func snapshot(top string) (string, error) {
	return "", errors.New("no snapshot of a directory on this system")
}
