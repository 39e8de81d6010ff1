#!/usr/bin/env bash
# make test-container: builds Dockerfile.test with podman and runs the
# container suite in three shapes (integration/container_test.go): podman's
# defaults, Docker's default seccomp profile, and unmasked /proc with the
# profile docs/kubernetes.md gives. Installs podman, runc and debootstrap
# where missing; needs no registry (scripts/container-base.sh) and, once
# the base image is cached, no network.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
[ "$(id -u)" -eq 0 ] || { echo "test-container: run as root (podman, debootstrap)" >&2; exit 1; }
need=()
command -v podman >/dev/null || need+=(podman)
command -v runc >/dev/null || need+=(runc)
if [ "${#need[@]}" -gt 0 ]; then
	echo "test-container: installing ${need[*]}"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi
scripts/container-base.sh
start=$(date +%s)
ctx="$(mktemp -d /var/tmp/nsrun-container.XXXXXX)"
trap 'rm -rf "$ctx"' EXIT
go run ./integration/profiles docker >"$ctx/docker.json"
# The host's toolchain and module cache are lent to the build: no network.
go mod download
echo "== podman build -f Dockerfile.test"
podman build -q -f Dockerfile.test -t localhost/nsrun-test \
	--build-arg BASE=localhost/nsrun-base:bookworm --build-arg GOPROXY=off \
	-v "$(go env GOROOT)":/usr/local/go:ro -v "$(go env GOMODCACHE)":/root/go/pkg/mod:ro \
	-v "$(go env GOCACHE)":/root/.cache/go-build . >/dev/null
# crun refuses hybrid cgroup hosts; root here lacks CAP_SYS_RESOURCE to
# raise these limits.
common=(--rm --runtime runc --ulimit nofile=1024:1024 --ulimit nproc=1000:1000)
status=0
podman run "${common[@]}" -e NSRUN_SHAPE=default localhost/nsrun-test || status=1
podman run "${common[@]}" -e NSRUN_SHAPE=docker --security-opt seccomp="$ctx/docker.json" localhost/nsrun-test || status=1
podman run "${common[@]}" -e NSRUN_SHAPE=unmasked --security-opt unmask=ALL \
	--security-opt seccomp=docs/kubernetes/seccomp-nsrun.json localhost/nsrun-test || status=1
podman image prune -f >/dev/null 2>&1 || true
echo "test-container: $(($(date +%s) - start)) s (base image aside)"
exit $status
