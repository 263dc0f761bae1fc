module github.com/perfgate/perfgate

go 1.26.0

require (
	github.com/aclements/go-moremath v0.0.0-20210112150236-f10218a38794
	github.com/google/go-cmp v0.7.0
	github.com/google/go-github/v60 v60.0.0
	github.com/google/pprof v0.0.0-20261105003125-4bf881d7fb0b
	github.com/rogpeppe/go-internal v1.16.0
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.2
	github.com/sethvargo/go-githubactions v1.3.1
	github.com/yuin/goldmark v1.8.7
	go.yaml.in/yaml/v3 v3.0.6
	golang.org/x/arch v0.33.0
	golang.org/x/net v0.61.0
	golang.org/x/perf v0.0.0-20260908200009-22c9c6c9d4da
	golang.org/x/sys v0.50.0
	golang.org/x/tools v0.52.0
)

require (
	github.com/google/go-querystring v1.1.0 // indirect
	golang.org/x/text v0.43.0 // indirect
)
