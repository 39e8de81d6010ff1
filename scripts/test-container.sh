#!/usr/bin/env bash
# make test-container: builds Dockerfile.test with podman and runs the
# container suite in three shapes (integration/container_test.go): podman's
# defaults, Docker's default seccomp profile, and unmasked /proc with the
# profile docs/kubernetes.md gives. Installs podman, runc and debootstrap
# where missing; needs no registry (scripts/container-base.sh) and, once
# the base image is cached, no network.
#
# usage: scripts/test-container.sh [prepare|build|run]
# Each step does the ones before it that were not done: prepare installs
# and makes the base image, build builds the suite's image, run runs the
# three shapes on the image build made (.ci/run builds it beside make test).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
step="${1:-run}"
case "$step" in
prepare | build | run) ;;
*) echo "usage: $0 [prepare|build|run]" >&2; exit 1 ;;
esac
[ "$(id -u)" -eq 0 ] || { echo "test-container: run as root (podman, debootstrap)" >&2; exit 1; }
IMAGE=localhost/nsrun-test
need=()
command -v podman >/dev/null || need+=(podman)
command -v runc >/dev/null || need+=(runc)
if [ "${#need[@]}" -gt 0 ]; then
	echo "test-container: installing ${need[*]}"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi
scripts/container-base.sh
[ "$step" != prepare ] || exit 0
start=$(date +%s)
# The image of this tree: NSRUN_CONTAINER_BUILT=1 says it was built already
# (by this script's build step, in the same run of .ci/run).
if [ "$step" = build ] || [ "${NSRUN_CONTAINER_BUILT:-}" != 1 ]; then
	# The host's toolchain and module cache are lent to the build: no network.
	go mod download
	echo "== podman build -f Dockerfile.test"
	podman build -q -f Dockerfile.test -t "$IMAGE" \
		--build-arg BASE=localhost/nsrun-base:bookworm --build-arg GOPROXY=off \
		-v "$(go env GOROOT)":/usr/local/go:ro -v "$(go env GOMODCACHE)":/root/go/pkg/mod:ro \
		-v "$(go env GOCACHE)":/root/.cache/go-build . >/dev/null
	echo "test-container: image built in $(($(date +%s) - start)) s"
fi
[ "$step" != build ] || exit 0
ctx="$(mktemp -d /var/tmp/nsrun-container.XXXXXX)"
trap 'rm -rf "$ctx"' EXIT
go run ./integration/profiles docker >"$ctx/docker.json"
# crun refuses hybrid cgroup hosts; root here lacks CAP_SYS_RESOURCE to
# raise these limits.
common=(--rm --runtime runc --ulimit nofile=1024:1024 --ulimit nproc=1000:1000)
status=0
podman run "${common[@]}" -e NSRUN_SHAPE=default "$IMAGE" || status=1
podman run "${common[@]}" -e NSRUN_SHAPE=docker --security-opt seccomp="$ctx/docker.json" "$IMAGE" || status=1
podman run "${common[@]}" -e NSRUN_SHAPE=unmasked --security-opt unmask=ALL \
	--security-opt seccomp=docs/kubernetes/seccomp-nsrun.json "$IMAGE" || status=1
podman image prune -f >/dev/null 2>&1 || true
echo "test-container: $(($(date +%s) - start)) s (base image aside)"
exit $status
