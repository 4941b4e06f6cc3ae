#!/usr/bin/env bash
# The one test command (README, .ci/run): starts PostgreSQL and Redis if needed, then
# runs every test, with the race detector, on both databases.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/services.sh
scripts/browser.sh
go vet ./...
go test -race -count=1 -timeout 20m ./... "$@"
