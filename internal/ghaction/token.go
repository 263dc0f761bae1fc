package ghaction

// TokenVariables are the environment variables that may hold the workflow's token (the github-token
// input, under both spellings the runner uses, and GITHUB_TOKEN): perfgate action hides their
// values from the processes it runs (sandbox.HideEnvironment).
var TokenVariables = []string{"INPUT_GITHUB_TOKEN", "INPUT_GITHUB-TOKEN", "GITHUB_TOKEN"}
