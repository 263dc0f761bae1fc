package record

// PolicyOrigin says whose configuration file set the gate policy of a comparison (the keys marked
// Policy in perfgate's key table: thresholds, alpha, the acknowledge label, …) and what head's file
// would change in it.
type PolicyOrigin struct {
	// From is the side whose configuration file the policy keys were read from: Base in the Action
	// (a pull request must not loosen its own gate), Head for a local comparison unless asked
	// otherwise.
	From Side `json:"from"`
	// BaseCommit is the commit base's file was read at; "" when From is Head.
	BaseCommit string `json:"base_commit,omitempty"`
	// Changes are the policy values head's configuration file sets differently from base's, key by
	// key. When From is Base they were not used: they apply once the pull request is merged. Empty
	// when From is Head.
	Changes []PolicyChange `json:"changes,omitempty"`
}

// PolicyChange is one policy value that head's configuration file sets differently from base's.
// Base and Head are the values as the file writes them (untrusted text, head's above all); "" for a
// mapping item one side lacks.
type PolicyChange struct {
	Key string `json:"key"` // the file key: "alpha", "thresholds"
	// within a mapping, the item's key: the pattern ".*" of thresholds
	Item string `json:"item,omitempty"`
	Base string `json:"base"`
	Head string `json:"head"`
}
