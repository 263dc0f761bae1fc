#!/usr/bin/env bash
# Builds perfgate for action.yml and comment/action.yml from the action's own source ($PERFGATE_SRC), never from
# the repository the workflow checked out.
#
#   perfgate-build.sh locate   writes the step outputs key, dir and bin: where this source's binary lives and the
#                              cache key that names it (the OS, the architecture, the Go version, the action's go.sum
#                              and the digest of its go.mod, go.sum and Go files, so a moved tag such as v1 gets a
#                              new key)
#   perfgate-build.sh build    builds the binary at $PERFGATE_BIN unless it is there already (restored from the cache,
#                              or left by an earlier job on a self-hosted runner)
set -euo pipefail
: "${PERFGATE_SRC:?the source directory of the action}"

# digest prints a digest of the Go source under the current directory (testdata and .git left out), by relative
# path, so that the same source gives the same digest wherever the runner unpacked it.
digest() {
  find . -path ./.git -prune -o -path '*/testdata' -prune -o -type f -print |
    grep -E '(\.go|/go\.mod|/go\.sum)$' | LC_ALL=C sort | xargs sha256sum | sha256sum | cut -c1-16
}

case "${1:-}" in
locate)
  cd "$PERFGATE_SRC"
  gosum=$(sha256sum go.sum | cut -c1-16)
  source=$(digest)
  goversion=$(go env GOVERSION)
  dir="${RUNNER_TOOL_CACHE:-${RUNNER_TEMP:?}}/perfgate/$source-$goversion"
  {
    echo "key=perfgate-${RUNNER_OS:-Linux}-${RUNNER_ARCH:-X64}-$goversion-$gosum-$source"
    echo "dir=$dir"
    echo "bin=$dir/perfgate"
  } >>"${GITHUB_OUTPUT:?}"
  ;;
build)
  : "${PERFGATE_BIN:?where the binary goes}"
  if [ -x "$PERFGATE_BIN" ]; then
    echo "perfgate: using the cached build $PERFGATE_BIN"
    exit 0
  fi
  cd "$PERFGATE_SRC"
  go build -trimpath -o "$PERFGATE_BIN" ./cmd/perfgate
  ;;
*)
  echo "usage: perfgate-build.sh locate|build" >&2
  exit 2
  ;;
esac
