//go:build !amd64 || purego

package des

// rounds runs the 16 rounds of the stage ks on the halves (l, r): roundsGo.
func rounds(sp *[8][64]uint32, ks *schedule, l, r uint32) (uint32, uint32) {
	return roundsGo(sp, ks, l, r)
}

// roundsReversed runs them with the subkeys from round 16 down to round 1.
func roundsReversed(sp *[8][64]uint32, ks *schedule, l, r uint32) (uint32, uint32) {
	return roundsReversedGo(sp, ks, l, r)
}
