// Package sarif writes the constant-time check's findings (record.ConstantTime) as a SARIF 2.1.0
// log, the format GitHub's code scanning reads (github/codeql-action/upload-sarif), so that each
// secret-dependent branch and load shows on its line of the pull request.
//
// ConstantTime turns the record into one run of tool "perfgate" with two rules, one per kind of
// site (RuleBranch, RuleLoad), and one result per site of the package's code: an instruction, with
// every operation (constructor and method) in which it depends on the secret. Head's sites carry
// the state their operations give them against base (gate.OperationSiteDeltas): new, updated
// (more or fewer lines per lookup) or unchanged, in baselineState and in the property
// perfgate/state; base's sites that head lost are results too, with baselineState absent and level
// none. A result is at its file (relative to the repository root, under uriBaseId %SRCROOT%, which
// code scanning maps to the checkout) and line, and names the table it reads, the table's size and
// the 64-byte lines one lookup touches. Its partial fingerprint does not contain the line, so that
// code scanning follows a site across edits above it.
//
// The package is data only: it reads the record and returns bytes; the results directory (package
// results) owns the file.
package sarif

// The log's types: the part of SARIF 2.1.0 (OASIS Standard, with errata 01) that the constant-time
// log uses. Field names and nesting are the schema's.

// Log is a SARIF log file.
type Log struct {
	Schema  string `json:"$schema"`
	Version string `json:"version"`
	Runs    []Run  `json:"runs"`
}

// Run is one run of one tool.
type Run struct {
	Tool               Tool                        `json:"tool"`
	AutomationDetails  *AutomationDetails          `json:"automationDetails,omitempty"`
	OriginalURIBaseIDs map[string]ArtifactLocation `json:"originalUriBaseIds,omitempty"`
	Results            []Result                    `json:"results"`
	Invocations        []Invocation                `json:"invocations,omitempty"`
	Properties         map[string]any              `json:"properties,omitempty"`
}

// Tool is the analysis tool.
type Tool struct {
	Driver Driver `json:"driver"`
}

// Driver is the tool's main component: its name, version and rules.
type Driver struct {
	Name           string `json:"name"`
	Version        string `json:"version,omitempty"`
	InformationURI string `json:"informationUri,omitempty"`
	Rules          []Rule `json:"rules"`
}

// Rule is a reportingDescriptor: what a kind of result means.
type Rule struct {
	ID                   string         `json:"id"`
	Name                 string         `json:"name"`
	ShortDescription     *Message       `json:"shortDescription,omitempty"`
	FullDescription      *Message       `json:"fullDescription,omitempty"`
	Help                 *Message       `json:"help,omitempty"`
	DefaultConfiguration *Configuration `json:"defaultConfiguration,omitempty"`
	Properties           map[string]any `json:"properties,omitempty"`
}

// Configuration is a reportingConfiguration.
type Configuration struct {
	Level string `json:"level"`
}

// Message is plain text.
type Message struct {
	Text string `json:"text"`
}

// AutomationDetails names the run's category, so that code scanning keeps this log's results apart
// from others.
type AutomationDetails struct {
	ID string `json:"id"`
}

// Invocation says whether the run completed.
type Invocation struct {
	ExecutionSuccessful bool `json:"executionSuccessful"`
	// ToolExecutionNotifications are why it did not complete, or what it left out.
	ToolExecutionNotifications []Notification `json:"toolExecutionNotifications,omitempty"`
}

// Notification is a message of the tool about its run.
type Notification struct {
	Message Message `json:"message"`
	Level   string  `json:"level,omitempty"`
}

// Result is one finding.
type Result struct {
	RuleID              string            `json:"ruleId"`
	RuleIndex           int               `json:"ruleIndex"`
	Level               string            `json:"level"`
	Message             Message           `json:"message"`
	Locations           []Location        `json:"locations"`
	BaselineState       string            `json:"baselineState,omitempty"`
	PartialFingerprints map[string]string `json:"partialFingerprints,omitempty"`
	Properties          map[string]any    `json:"properties,omitempty"`
}

// Location is where a result is: a file and line, and the function.
type Location struct {
	PhysicalLocation *PhysicalLocation `json:"physicalLocation,omitempty"`
	LogicalLocations []LogicalLocation `json:"logicalLocations,omitempty"`
}

// PhysicalLocation is a file and a region of it.
type PhysicalLocation struct {
	ArtifactLocation ArtifactLocation `json:"artifactLocation"`
	Region           *Region          `json:"region,omitempty"`
}

// ArtifactLocation is a URI, relative to the base its URIBaseID names.
type ArtifactLocation struct {
	URI       string `json:"uri,omitempty"`
	URIBaseID string `json:"uriBaseId,omitempty"`
	// Description says what a base ID stands for (in originalUriBaseIds).
	Description *Message `json:"description,omitempty"`
}

// Region is a line of the file.
type Region struct {
	StartLine int `json:"startLine"`
}

// LogicalLocation is the function holding the site.
type LogicalLocation struct {
	Name               string `json:"name"`
	FullyQualifiedName string `json:"fullyQualifiedName,omitempty"`
	Kind               string `json:"kind"`
}
