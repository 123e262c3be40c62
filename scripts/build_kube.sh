#!/usr/bin/env bash
# Build kube-apiserver and kube-scheduler v1.20.2 from Debian's `kubernetes` source package, for the
# opt-in differential test of `mlplatform place` (make test-scheduler). Offline apart from the Debian
# archive: Debian bookworm's source package (upstream v1.20.2 with vendor/), its golang-1.19-go, and
# golang-github-modern-go-reflect2-dev swapped in for the vendored reflect2 1.0.1, whose unsafe tricks
# crash under Go >= 1.18. etcd comes from Debian's etcd-server.
#
# Usage: scripts/build_kube.sh OUT_DIR      (make test-scheduler passes $KUBE_BIN_DIR)
# Env:   KUBE_BUILD_ROOT  where the source tree and Go caches go (default: OUT_DIR/../src; about 3 GB)
#        GOCACHE          a Go build cache to reuse (default: KUBE_BUILD_ROOT/gocache)
# Idempotent: exits at once when OUT_DIR already holds both binaries and etcd.path. Needs root for apt-get.
# Takes 6-15 minutes on 2 cores. Nothing is written inside the repository.
set -euo pipefail

OUT_DIR="${1:?usage: build_kube.sh OUT_DIR}"
BUILD_ROOT="${KUBE_BUILD_ROOT:-$(dirname "$OUT_DIR")/src}"
SRC_VERSION="1.20.5+really1.20.2-1.1+deb12u1"  # bookworm-security; the binaries report v1.20.2
SRC_DIR="$BUILD_ROOT/kubernetes-1.20.5+really1.20.2"
GOROOT_DEB=/usr/lib/go-1.19
REFLECT2=/usr/share/gocode/src/github.com/modern-go/reflect2
PACKAGES=(golang-1.19-go golang-github-modern-go-reflect2-dev etcd-server dpkg-dev make rsync openssl)

log() { printf '[build_kube] %s\n' "$*" >&2; }

if [[ -x "$OUT_DIR/kube-apiserver" && -x "$OUT_DIR/kube-scheduler" && -s "$OUT_DIR/etcd.path" ]]; then
  exit 0
fi
[[ $(id -u) == 0 ]] || { echo "build_kube.sh: apt-get needs root" >&2; exit 1; }

# 1. Source entries for the Debian archive already configured (deb822 stanzas with Types: deb-src).
if ! grep -rqs '^Types:.*deb-src\|^deb-src ' /etc/apt/sources.list /etc/apt/sources.list.d/; then
  log "adding deb-src entries for the configured Debian archive"
  # deb822 stanzas (paragraphs) of the Debian archive, as deb-src; or one-line entries from sources.list.
  awk 'BEGIN { RS = ""; ORS = "\n\n" } /URIs:[^\n]*debian\.org/ && /Types: deb(\n|$)/ {
         sub(/Types: deb/, "Types: deb-src"); print }' /etc/apt/sources.list.d/*.sources 2>/dev/null \
    >/etc/apt/sources.list.d/mlplatform-deb-src.sources || true
  if [[ ! -s /etc/apt/sources.list.d/mlplatform-deb-src.sources ]]; then
    rm -f /etc/apt/sources.list.d/mlplatform-deb-src.sources
    sed -n 's/^deb \(.*debian\.org.*\)/deb-src \1/p' /etc/apt/sources.list >/etc/apt/sources.list.d/mlplatform-deb-src.list
  fi
fi
apt-get update -qq
missing=()
for p in "${PACKAGES[@]}"; do dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p"); done
if ((${#missing[@]})); then
  log "installing ${missing[*]}"
  # Keep etcd-server's postinst from starting a system etcd on :2379.
  policy=/usr/sbin/policy-rc.d; made_policy=0
  [[ -e $policy ]] || { printf '#!/bin/sh\nexit 101\n' >"$policy"; chmod +x "$policy"; made_policy=1; }
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  ((made_policy)) && rm -f "$policy"
fi

# 2. The source package.
mkdir -p "$BUILD_ROOT"
if [[ ! -f "$SRC_DIR/.unpacked-ok" ]]; then
  log "apt-get source kubernetes=$SRC_VERSION"
  rm -rf "$SRC_DIR"
  (cd "$BUILD_ROOT" && apt-get source -qq --download-only "kubernetes=$SRC_VERSION" \
    && dpkg-source -x "kubernetes_${SRC_VERSION}.dsc" >/dev/null)
  touch "$SRC_DIR/.unpacked-ok"
fi

# 3. reflect2 1.0.2 (Debian) over the vendored 1.0.1; same API. The build runs in GOPATH mode, so
#    vendor/modules.txt needs no change.
vendored="$SRC_DIR/vendor/github.com/modern-go/reflect2"
if [[ ! -f "$vendored/.debian-reflect2" ]]; then
  log "swapping vendored reflect2 for Debian's"
  rm -rf "$vendored" && mkdir -p "$vendored"
  find "$REFLECT2" -maxdepth 1 -type f \( -name '*.go' -o -name '*.s' -o -name LICENSE \) ! -name '*_test.go' \
    -exec cp -L {} "$vendored/" \;
  touch "$vendored/.debian-reflect2"
fi

# 4. make (code generators first: zz_generated.openapi.go is not in the tarball), niced, two cores.
export GOROOT="$GOROOT_DEB" PATH="$GOROOT_DEB/bin:$PATH" GOPATH="$BUILD_ROOT/gopath" GOCACHE="${GOCACHE:-$BUILD_ROOT/gocache}"
export GOMAXPROCS=2 GOFLAGS=-p=2 CGO_ENABLED=0 GOPROXY=off GOTOOLCHAIN=local
log "make kube-apiserver kube-scheduler with $(go version) (log: $BUILD_ROOT/make.log)"
(cd "$SRC_DIR" && nice -n 10 make -j1 WHAT="cmd/kube-apiserver cmd/kube-scheduler" KUBE_BUILD_PLATFORMS=linux/amd64 \
  >"$BUILD_ROOT/make.log" 2>&1) || { tail -40 "$BUILD_ROOT/make.log" >&2; exit 1; }

# 5. Install; etcd.path last, so a half-done run is never taken for a finished one.
mkdir -p "$OUT_DIR"
for b in kube-apiserver kube-scheduler; do install -m 0755 "$SRC_DIR/_output/local/bin/linux/amd64/$b" "$OUT_DIR/$b"; done
{
  echo "source_package=kubernetes $SRC_VERSION"
  echo "go=$(go version)"
  echo "reflect2=golang-github-modern-go-reflect2-dev $(dpkg-query -W -f='${Version}' golang-github-modern-go-reflect2-dev)"
  for b in kube-apiserver kube-scheduler; do echo "$b=$("$OUT_DIR/$b" --version 2>&1 | head -1)"; done
} >"$OUT_DIR/BUILD-INFO"
echo "ETCD_BIN=$(command -v etcd)" >"$OUT_DIR/etcd.path"
log "done: $OUT_DIR"
