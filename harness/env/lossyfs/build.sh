#!/usr/bin/env bash
# Builds the power-loss filesystem (lossyfs, Go on go-fuse from the Go module proxy) once per
# digest of its sources and prints the binary's path:
#
#   bash harness/env/lossyfs/build.sh        # prints ~/.cache/dpone-lossyfs/lossyfs-<digest>
#
# A binary whose digest matches is reused (well under a second); changed sources build a new one
# (about 15 s with an empty module cache). harness/env/lossy-fs-binary.ts computes the same digest
# from the same files to find it. DPONE_LOSSYFS_CACHE overrides the cache folder.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cache="${DPONE_LOSSYFS_CACHE:-$HOME/.cache/dpone-lossyfs}"
cd "$here"
# The digest covers go.mod, go.sum, then the *.go files in byte order of their names.
digest="$({
  cat go.mod go.sum
  for f in $(printf '%s\n' *.go | LC_ALL=C sort); do cat "$f"; done
} | sha256sum | cut -c1-16)"
bin="$cache/lossyfs-$digest"
if [ -x "$bin" ]; then
  printf '%s\n' "$bin"
  exit 0
fi
go="$(command -v go || echo /usr/local/go/bin/go)"
mkdir -p "$cache"
printf '[lossyfs] go build -> %s\n' "$bin" >&2
GOFLAGS=-mod=mod CGO_ENABLED=0 "$go" build -trimpath -o "$bin.tmp.$$" .
mv "$bin.tmp.$$" "$bin"
printf '%s\n' "$bin"
