#!/usr/bin/env bash
# Provision the real Kubernetes components the e2e tests and `npm run cluster` need, offline,
# from Debian packages only (scripts/e2e/README.md describes what comes from where).
#
#   bash scripts/e2e/provision.sh            # everything the tests use (idempotent; seconds when cached)
#   bash scripts/e2e/provision.sh cluster    # only what `npm run cluster` needs (packages, source, build,
#                                            # images of v1.20.2): no v1.20.3, no stand-ins, no debian-sid
#   bash scripts/e2e/provision.sh unit       # only what the unit project (test/unit, test/integration) uses
#   bash scripts/e2e/provision.sh [PROFILE] --list   # the stages PROFILE runs, cached or not, and who
#                                            # uses each; runs nothing (also the packages it would install)
#   TSADM_CACHE_DIR=/somewhere bash ...      # cache elsewhere (default /var/cache/tsadm)
#   TSADM_KEEP_BUILD=1 bash ...              # keep the Kubernetes build tree after success
#
# Stages (each leaves a stamp file <stage>-<version>, so a re-run skips it), with their users:
#   packages          apt packages (checked with dpkg every run: cheap, and the cache may outlive them);
#                     per profile: the cluster's, plus the unit project's oracles, plus the e2e tools
#   source            Debian's kubernetes source package, downloaded into the cache
#   build             kubeadm, control-plane binaries, kubelet, kube-proxy, kubectl (Go 1.19, GOPATH mode)
#   images            OCI archives registry.local/k8s/{kube-*,pause,etcd} for `ctr images import`
#   build-relabelled  the same source again, stamped v1.20.3 (a second version for upgrade tests;
#                     the same code, only the version differs); a relink when the Go cache is warm
#   images (v1.20.3)  kube-* images tagged v1.20.3; pause and etcd are v1.20.2's (hard links)
#   standins          images-standins/coredns.tar: registry.local/k8s/coredns:1.7.0, a stand-in that
#                     answers CoreDNS's probes (scripts/e2e/images/coredns-standin.c); imported only
#                     where a test asks for it (upgrade apply needs a ready CoreDNS)
#   debian-sid        newer etcd (>= 3.5: etcd, etcdctl, etcdutl) and containerd (>= 2: containerd,
#                     ctr, the runc shim) from Debian's unstable suite, and Go 1.26 (the toolchain
#                     that builds the CSR reader test/fixtures/go-csr-reader: crypto/x509 close to the
#                     Go that builds current Kubernetes), `apt-get download` with a private apt
#                     configuration and `dpkg-deb -x`: never installed over the host's bookworm
#                     packages, which the e2e machines use
#
# Results:
#   $CACHE/kubernetes-v1.20.2/bin/{kubeadm,kube-apiserver,kube-controller-manager,kube-scheduler,
#                                  kubelet,kube-proxy,kubectl}
#   $CACHE/images-v1.20.2/*.tar
#   $CACHE/kubernetes-v1.20.3/bin/..., $CACHE/images-v1.20.3/*.tar (the same set, relabelled)
#   $CACHE/images-standins/coredns.tar
#   $CACHE/debian-sid/root/usr/bin/{etcd,etcdctl,etcdutl,containerd,ctr,containerd-shim-runc-v2},
#   $CACHE/debian-sid/root/etc/containerd/config.toml (the package's), $CACHE/debian-sid/packages.txt,
#   $CACHE/debian-sid/root/usr/lib/go-1.26/bin/go (GOROOT beside it; src links to ../../share/go-1.26)
#   $CACHE/go-cache   Go build cache, kept so that rebuilding (a relabel) is a relink
set -euo pipefail

K8S_VERSION=v1.20.2
PAUSE_TAG=3.2
ETCD_TAG=3.4.13-0
IMAGE_REPO=registry.local/k8s
CACHE=${TSADM_CACHE_DIR:-/var/cache/tsadm}
K8S_DIR=$CACHE/kubernetes-$K8S_VERSION
BIN_DIR=$K8S_DIR/bin
IMG_DIR=$CACHE/images-$K8S_VERSION
# The second version for upgrade tests: $K8S_VERSION's source relabelled (stage build-relabelled).
UPGRADE_VERSION=v1.20.3
UPGRADE_BIN_DIR=$CACHE/kubernetes-$UPGRADE_VERSION/bin
UPGRADE_IMG_DIR=$CACHE/images-$UPGRADE_VERSION
STANDIN_IMG_DIR=$CACHE/images-standins
# Sources of the stand-in images, found from this script (absolute: stages may change directory).
STANDIN_SRC_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/images
# The CoreDNS image kubeadm 1.20 deploys (constants.CoreDNSVersion).
COREDNS_TAG=1.7.0
STAMPS=$CACHE/stamps
# Newer parts from Debian's unstable suite (stage debian-sid): the packages, and the oldest
# versions the tests accept (etcd major.minor, containerd major), and the Go minor (its package
# names carry it; Kubernetes 1.35 is built with Go 1.25, which unstable no longer has).
SID_DIR=$CACHE/debian-sid
SID_GO=1.26
SID_PACKAGES=(etcd-server etcd-client containerd "golang-$SID_GO-go" "golang-$SID_GO-src")
SID_ETCD_MIN=3.5
SID_CONTAINERD_MIN=2
GO_BIN=/usr/lib/go-1.19/bin
COMPONENTS=(kubeadm kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy kubectl)
# apt packages by who needs them. The cluster: the machines' runtime and the tools kubeadm's
# preflight looks for (socat, ebtables, ethtool, conntrack), etcd for the etcd image, the build
# (Kubernetes' hack/ scripts copy the generators' sources with rsync: without it the build's first
# step fails with "find: 'rsync': No such file or directory", seen on a fresh machine).
CLUSTER_PACKAGES=(containerd runc containernetworking-plugins etcd-server etcd-client iproute2 iptables
  conntrack socat ebtables ethtool util-linux gcc libc6-dev make golang-1.19-go jq rsync
  golang-github-modern-go-reflect2-dev)
# The unit project's oracles besides the built components (test/helpers/oracle.ts): openssl
# everywhere, strace (test/integration/safety/write-syscalls.test.ts), man and groff
# (test/integration/man-pages.test.ts), zsh (test/unit/cli/completion.test.ts), systemd for
# systemd-analyze (test/unit/csr-approval/service-unit.test.ts) and for the systemd that
# machine.sh boots inside a machine (test/e2e/etcd-snapshot.e2e.test.ts; never the host's init),
# apt-utils for apt-ftparchive (scripts/apt-repo.mjs, test/integration/apt-repo.test.ts).
UNIT_PACKAGES=(openssl strace man-db groff-base zsh systemd apt-utils)
# The arm64 package's test (test/integration/sea-arm64.test.ts): qemu-user runs the aarch64
# executable with Debian's cross-built aarch64 glibc, libstdc++ and libgcc as its sysroot
# (qemu-aarch64 -L /usr/aarch64-linux-gnu); no binfmt registration (qemu-user-binfmt is only recommended).
UNIT_PACKAGES+=(qemu-user libc6-arm64-cross libstdc++6-arm64-cross libgcc-s1-arm64-cross)
# e2e only: a registry and skopeo (test/e2e/images.e2e.test.ts), haproxy (test/e2e/ha.e2e.test.ts);
# GNU time for bench/ (npm run bench).
E2E_PACKAGES=(docker-registry skopeo haproxy time)

T0=$(date +%s)
log() { printf '[provision %4ds] %s\n' "$(($(date +%s) - T0))" "$*"; }
die() { log "ERROR: $*"; exit 1; }

# run_stage NAME VERSION FUNCTION [ARG...]: runs FUNCTION unless $STAMPS/NAME-VERSION exists;
# times it.
run_stage() {
  local name=$1 stamp="$STAMPS/$1-$2" fn=$3 start
  shift 3
  if [[ -f $stamp ]]; then
    log "stage $name: cached ($(cat "$stamp"))"
    return 0
  fi
  start=$(date +%s)
  log "stage $name: start"
  "$fn" "$@"
  mkdir -p "$STAMPS"
  date -u +%Y-%m-%dT%H:%M:%SZ >"$stamp"
  log "stage $name: done in $(($(date +%s) - start))s"
}

# --- packages --------------------------------------------------------------------------------
missing_packages() {
  local p
  for p in "${APT_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' || echo "$p"
  done
}

stage_packages() {
  local missing start
  missing=$(missing_packages | tr '\n' ' ')
  if [[ -z ${missing// /} ]]; then
    log "stage packages: all ${#APT_PACKAGES[@]} installed"
    return 0
  fi
  start=$(date +%s)
  log "stage packages: installing $missing"
  export DEBIAN_FRONTEND=noninteractive
  # `apt-get update` only when the lists are missing or an install fails with the old lists.
  # shellcheck disable=SC2086
  if ! compgen -G '/var/lib/apt/lists/*_Packages*' >/dev/null ||
    ! apt-get install -y -q --no-install-recommends $missing >"$CACHE/logs/apt.log" 2>&1; then
    apt-get update -q >>"$CACHE/logs/apt.log" 2>&1
    apt-get install -y -q --no-install-recommends $missing >>"$CACHE/logs/apt.log" 2>&1 ||
      die "apt-get install failed; see $CACHE/logs/apt.log"
  fi
  # containerd's Debian package may start a host containerd via its init script: we don't want
  # one (each machine runs its own), and there is no systemd, so nothing else does.
  log "stage packages: done in $(($(date +%s) - start))s"
}

# --- source ----------------------------------------------------------------------------------
# A private apt configuration (lists and sources under the cache) with the machine's own Debian
# archive as deb-src, so the host's apt state is not touched.
apt_src() {
  apt-get -q -o Dir::Etc::SourceList="$CACHE/apt/src.sources" \
    -o Dir::Etc::SourceParts="$CACHE/apt/empty.d" \
    -o Dir::State::Lists="$CACHE/apt/lists" \
    -o Dir::Cache="$CACHE/apt/cache" "$@"
}

stage_source() {
  local src=/etc/apt/sources.list.d/debian.sources
  [[ -f $src ]] || die "$src not found: cannot derive a deb-src entry"
  mkdir -p "$CACHE/apt/empty.d" "$CACHE/apt/lists/partial" "$CACHE/apt/cache/archives/partial" "$CACHE/src"
  sed 's/^Types:.*/Types: deb-src/' "$src" >"$CACHE/apt/src.sources"
  apt_src update >"$CACHE/logs/apt-src.log" 2>&1 || die "apt-get update (deb-src) failed; see $CACHE/logs/apt-src.log"
  (cd "$CACHE/src" && apt_src source --download-only kubernetes) >>"$CACHE/logs/apt-src.log" 2>&1 ||
    die "apt-get source kubernetes failed; see $CACHE/logs/apt-src.log"
  ls "$CACHE"/src/kubernetes_*.orig.tar.* >/dev/null 2>&1 || die "no orig tarball in $CACHE/src"
  log "stage source: $(cd "$CACHE/src" && ls | tr "\n" " ")"
}

# --- build -----------------------------------------------------------------------------------
# Kubernetes' build forces GOCACHE to <tree>/_output/local/go/cache (hack/lib/golang.sh overrides
# whatever the caller exports), so that directory is a symlink to $GO_CACHE, which outlives the
# tree. Go keys its cache on the package directories, so every build uses the same tree path
# ($BUILD_TREE): the relabelled v1.20.3 build then only reruns the code generators and relinks
# (80 s measured on 2 shared cores, against ~18 min for a build with a cold cache).
BUILD_TREE=$CACHE/build/kubernetes
GO_CACHE=$CACHE/go-cache

# prepare_tree: unpacks the orig tarball into $BUILD_TREE (a fresh copy) and patches it.
prepare_tree() {
  local orig='' reflect=/usr/share/gocode/src/github.com/modern-go/reflect2
  # The main orig tarball (not an extra "orig-COMPONENT" one).
  for orig in "$CACHE"/src/kubernetes_*.orig.tar.*; do [[ $orig == *.orig-* ]] || break; done
  [[ -f $orig ]] || die "no kubernetes orig tarball in $CACHE/src"
  rm -rf "$BUILD_TREE" && mkdir -p "$BUILD_TREE"
  log "unpacking $(basename "$orig") into $BUILD_TREE"
  tar -xf "$orig" -C "$BUILD_TREE" --strip-components=1
  [[ -d $BUILD_TREE/vendor/github.com/modern-go/reflect2 ]] || die "unexpected source layout: no vendor/ in $orig"

  # reflect2 1.0.1 (vendored by k8s 1.20) panics on map (de)serialisation with Go >= 1.18:
  # swap in Debian's 1.0.2.
  [[ -d $reflect ]] || die "$reflect missing (package golang-github-modern-go-reflect2-dev)"
  rm -rf "$BUILD_TREE/vendor/github.com/modern-go/reflect2"
  cp -rL "$reflect" "$BUILD_TREE/vendor/github.com/modern-go/reflect2"
  rm -f "$BUILD_TREE"/vendor/github.com/modern-go/reflect2/*_test.go

  # GOPATH-mode build, as Debian's own packaging does.
  mkdir -p "$BUILD_TREE/.go/src/k8s.io" "$BUILD_TREE/_output/local/go" "$GO_CACHE"
  ln -sfn ../../.. "$BUILD_TREE/.go/src/k8s.io/kubernetes"
  ln -sfn "$GO_CACHE" "$BUILD_TREE/_output/local/go/cache"
}

# make_components LOG [NAME=VALUE...]: `make WHAT=<every component>` in $BUILD_TREE with the
# given extra environment (the version stamping).
make_components() {
  local logfile=$1 what="" c
  shift
  for c in "${COMPONENTS[@]}"; do what+=" cmd/$c"; done
  log "make WHAT=\"${what# }\" (log: $logfile)"
  (
    cd "$BUILD_TREE"
    export GOPATH=$BUILD_TREE/.go GOCACHE=$GO_CACHE GO111MODULE=off CGO_ENABLED=0
    export PATH=$GO_BIN:$PATH
    [[ $# -eq 0 ]] || export "$@"
    make WHAT="${what# }"
  ) >"$logfile" 2>&1 || { tail -30 "$logfile"; die "build failed; see $logfile"; }
}

# install_components VERSION: copies the built binaries to $CACHE/kubernetes-VERSION/bin.
install_components() {
  local bin=$CACHE/kubernetes-$1/bin c
  mkdir -p "$bin"
  for c in "${COMPONENTS[@]}"; do
    install -m 0755 "$BUILD_TREE/_output/local/bin/linux/amd64/$c" "$bin/$c"
  done
}

# remove_tree: the tree goes (unpacking it again takes seconds); the Go cache stays.
remove_tree() {
  if [[ -z ${TSADM_KEEP_BUILD:-} ]]; then
    log "removing the build tree (set TSADM_KEEP_BUILD=1 to keep it); Go cache kept in $GO_CACHE"
    rm -rf "$CACHE/build"
  fi
}

stage_build() {
  prepare_tree
  log "stage build: several minutes on 2 cores when the Go cache is cold"
  make_components "$CACHE/logs/build.log" \
    KUBE_GIT_VERSION=$K8S_VERSION KUBE_GIT_MAJOR=1 KUBE_GIT_MINOR=20 KUBE_GIT_TREE_STATE=archive
  install_components "$K8S_VERSION"
  # The images stage needs pause.c; keep it with the binaries so the tree can go.
  install -m 0644 "$BUILD_TREE/build/pause/linux/pause.c" "$K8S_DIR/pause.c"
  sanity_check "$BIN_DIR"
  remove_tree
}

# --- build-relabelled ------------------------------------------------------------------------
# $UPGRADE_VERSION is the same source as $K8S_VERSION, only stamped with another version, so the
# upgrade machinery (versions read from the cluster, policy, manifests, images, kubelet swap) can
# be exercised for real. The orig tarball is a `git archive`: hack/lib/version.sh has the
# archive's tag and commit substituted in and ignores an exported KUBE_GIT_VERSION; only a
# version file named by KUBE_GIT_VERSION_FILE replaces them.
stage_build_relabelled() {
  local version_file=$CACHE/build/version-$UPGRADE_VERSION.env commit minor
  commit=$("$BIN_DIR/kubeadm" version -o json | jq -er .clientVersion.gitCommit) ||
    die "cannot read the git commit of $BIN_DIR/kubeadm"
  minor=${UPGRADE_VERSION#v1.}
  minor=${minor%%.*}
  prepare_tree
  cat >"$version_file" <<EOF_VERSION
KUBE_GIT_VERSION='$UPGRADE_VERSION'
KUBE_GIT_COMMIT='$commit'
KUBE_GIT_TREE_STATE='archive'
KUBE_GIT_MAJOR='1'
KUBE_GIT_MINOR='$minor'
EOF_VERSION
  log "stage build-relabelled: $K8S_VERSION's source (commit $commit) as $UPGRADE_VERSION"
  make_components "$CACHE/logs/build-$UPGRADE_VERSION.log" KUBE_GIT_VERSION_FILE="$version_file"
  install_components "$UPGRADE_VERSION"
  sanity_check "$UPGRADE_BIN_DIR"
  check_version_stamp "$UPGRADE_BIN_DIR" "$UPGRADE_VERSION"
  remove_tree
}

# check_version_stamp BIN_DIR VERSION: kubeadm and kubelet report VERSION (not the tarball's tag).
check_version_stamp() {
  local got
  got=$("$1/kubeadm" version -o short)
  [[ $got == "$2" ]] || die "$1/kubeadm reports $got, expected $2"
  got=$("$1/kubelet" --version)
  [[ $got == "Kubernetes $2" ]] || die "$1/kubelet reports '$got', expected 'Kubernetes $2'"
  log "version stamp: kubeadm $2, kubelet '$got'"
}

# sanity_check BIN_DIR: the built kubeadm serialises maps (the reflect2 fix took).
sanity_check() {
  local out
  out=$("$1/kubeadm" config print init-defaults --component-configs KubeletConfiguration 2>&1) ||
    die "kubeadm sanity check failed: $out"
  grep -q '^kind: KubeletConfiguration' <<<"$out" || die "kubeadm sanity check printed no KubeletConfiguration"
  log "$("$1/kubeadm" version -o short) passes the sanity check"
}

# --- images ----------------------------------------------------------------------------------
# write_oci_image REF ROOTFS ENTRYPOINT_JSON OUT.tar: a one-layer OCI image archive whose index
# carries the annotations `ctr images import` names the image by.
write_oci_image() {
  local ref=$1 rootfs=$2 entrypoint=$3 out=$4 oci tmp diff_id layer_digest layer_size cfg cfg_digest man man_digest
  tmp=$(mktemp -d "$CACHE/tmp.oci.XXXXXX")
  oci=$tmp/oci
  mkdir -p "$oci/blobs/sha256"
  tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -C "$rootfs" -cf "$tmp/layer.tar" .
  diff_id=$(sha256sum "$tmp/layer.tar" | cut -d' ' -f1)
  gzip -n -1 "$tmp/layer.tar"
  layer_digest=$(sha256sum "$tmp/layer.tar.gz" | cut -d' ' -f1)
  layer_size=$(stat -c %s "$tmp/layer.tar.gz")
  mv "$tmp/layer.tar.gz" "$oci/blobs/sha256/$layer_digest"

  cfg=$(jq -cn --arg diff "sha256:$diff_id" --argjson ep "$entrypoint" '{
    architecture: "amd64", os: "linux",
    config: {Env: ["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"], Entrypoint: $ep},
    rootfs: {type: "layers", diff_ids: [$diff]}}')
  printf '%s' "$cfg" >"$tmp/config.json"
  cfg_digest=$(sha256sum "$tmp/config.json" | cut -d' ' -f1)
  mv "$tmp/config.json" "$oci/blobs/sha256/$cfg_digest"

  man=$(jq -cn --arg cd "sha256:$cfg_digest" --argjson cs "${#cfg}" \
    --arg ld "sha256:$layer_digest" --argjson ls "$layer_size" '{
    schemaVersion: 2, mediaType: "application/vnd.oci.image.manifest.v1+json",
    config: {mediaType: "application/vnd.oci.image.config.v1+json", digest: $cd, size: $cs},
    layers: [{mediaType: "application/vnd.oci.image.layer.v1.tar+gzip", digest: $ld, size: $ls}]}')
  printf '%s' "$man" >"$tmp/manifest.json"
  man_digest=$(sha256sum "$tmp/manifest.json" | cut -d' ' -f1)
  mv "$tmp/manifest.json" "$oci/blobs/sha256/$man_digest"

  jq -cn --arg md "sha256:$man_digest" --argjson ms "${#man}" --arg ref "$ref" --arg tag "${ref##*:}" '{
    schemaVersion: 2,
    manifests: [{mediaType: "application/vnd.oci.image.manifest.v1+json", digest: $md, size: $ms,
      platform: {architecture: "amd64", os: "linux"},
      annotations: {"io.containerd.image.name": $ref, "org.opencontainers.image.ref.name": $tag}}]}' \
    >"$oci/index.json"
  echo '{"imageLayoutVersion":"1.0.0"}' >"$oci/oci-layout"
  tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -C "$oci" -cf "$out.tmp" .
  mv "$out.tmp" "$out"
  rm -rf "$tmp"
}

# new_rootfs DIR: the directories every image gets.
new_rootfs() {
  rm -rf "$1"
  mkdir -p "$1"/{etc,tmp,usr/local/bin,var/run,proc,sys,dev,run}
  chmod 1777 "$1/tmp"
  cp /etc/nsswitch.conf "$1/etc/" 2>/dev/null || true
  printf 'root:x:0:0:root:/root:/bin/sh\n' >"$1/etc/passwd"
  printf 'root:x:0:\n' >"$1/etc/group"
}

# copy_with_libs ROOTFS FILE...: copy files (following symlinks) at the same paths, plus every
# library ldd names for them, so dynamic binaries from Debian run inside the image.
copy_with_libs() {
  local rootfs=$1 f lib
  shift
  for f in "$@"; do
    cp -L --parents "$f" "$rootfs/"
    ldd "$f" 2>/dev/null | grep -o '/[^ ]*' | while read -r lib; do
      [[ -e $rootfs$lib ]] || cp -L --parents "$lib" "$rootfs/"
    done
  done
}

# images_pause_etcd WORK: pause and etcd into $IMG_DIR.
images_pause_etcd() {
  local work=$1
  # pause: the Kubernetes tree's pause.c, static.
  new_rootfs "$work/pause"
  gcc -Os -static -DVERSION="$PAUSE_TAG" -o "$work/pause/pause" "$K8S_DIR/pause.c"
  strip "$work/pause/pause" 2>/dev/null || true
  write_oci_image "$IMAGE_REPO/pause:$PAUSE_TAG" "$work/pause" '["/pause"]' "$IMG_DIR/pause.tar"
  log "stage images: pause:$PAUSE_TAG"

  # etcd: Debian's etcd (3.4.x; all of kubeadm 1.20's flags work) with the libraries it links.
  new_rootfs "$work/etcd"
  copy_with_libs "$work/etcd" /usr/bin/etcd /usr/bin/etcdctl
  ln -sf /usr/bin/etcd "$work/etcd/usr/local/bin/etcd"
  ln -sf /usr/bin/etcdctl "$work/etcd/usr/local/bin/etcdctl"
  mkdir -p "$work/etcd/var/lib/etcd"
  write_oci_image "$IMAGE_REPO/etcd:$ETCD_TAG" "$work/etcd" '["/usr/local/bin/etcd"]' "$IMG_DIR/etcd.tar"
  log "stage images: etcd:$ETCD_TAG ($(/usr/bin/etcd --version 2>/dev/null | head -1))"
}

# stage_images VERSION: the images of the Kubernetes binaries in $CACHE/kubernetes-VERSION/bin,
# into $CACHE/images-VERSION. pause and etcd are built for $K8S_VERSION only: every 1.20 patch
# release uses the same ones, so the other versions' directories get links to those archives.
stage_images() {
  local version=$1 work=$CACHE/tmp.images c
  local bin=$CACHE/kubernetes-$version/bin img=$CACHE/images-$version
  rm -rf "$work" && mkdir -p "$work" "$img"

  if [[ $version == "$K8S_VERSION" ]]; then
    images_pause_etcd "$work"
  else
    for c in pause etcd; do
      [[ -f $IMG_DIR/$c.tar ]] || die "$IMG_DIR/$c.tar missing: the $K8S_VERSION images come first"
      ln -f "$IMG_DIR/$c.tar" "$img/$c.tar" 2>/dev/null || cp "$IMG_DIR/$c.tar" "$img/$c.tar"
    done
    log "stage images: pause:$PAUSE_TAG and etcd:$ETCD_TAG as built for $K8S_VERSION (hard links)"
  fi

  # Control-plane images: the static binary at /usr/local/bin (manifests call it by name).
  for c in kube-apiserver kube-controller-manager kube-scheduler; do
    new_rootfs "$work/$c"
    install -m 0755 "$bin/$c" "$work/$c/usr/local/bin/$c"
    write_oci_image "$IMAGE_REPO/$c:$version" "$work/$c" "[\"/usr/local/bin/$c\"]" "$img/$c.tar"
    log "stage images: $c:$version"
  done

  # kube-proxy: the binary plus iptables (nft backend, like the host's) and conntrack with libs.
  new_rootfs "$work/kube-proxy"
  install -m 0755 "$bin/kube-proxy" "$work/kube-proxy/usr/local/bin/kube-proxy"
  copy_with_libs "$work/kube-proxy" /usr/sbin/xtables-nft-multi "$(command -v conntrack)"
  for c in iptables iptables-save iptables-restore ip6tables ip6tables-save ip6tables-restore; do
    ln -sf xtables-nft-multi "$work/kube-proxy/usr/sbin/$c"
  done
  mkdir -p "$work/kube-proxy/usr/lib/x86_64-linux-gnu/xtables"
  cp -L /usr/lib/x86_64-linux-gnu/xtables/*.so "$work/kube-proxy/usr/lib/x86_64-linux-gnu/xtables/"
  for c in /usr/lib/x86_64-linux-gnu/xtables/*.so; do copy_with_libs "$work/kube-proxy" "$c"; done
  for c in /etc/protocols /etc/services /etc/ethertypes; do
    [[ -f $c ]] && cp "$c" "$work/kube-proxy/etc/"
  done
  write_oci_image "$IMAGE_REPO/kube-proxy:$version" "$work/kube-proxy" '["/usr/local/bin/kube-proxy"]' "$img/kube-proxy.tar"
  log "stage images: kube-proxy:$version"

  rm -rf "$work"
}

# stage_cri_proto: keeps kubelet 1.20's CRI schema (cri-api runtime/v1alpha2 api.proto) from the
# orig tarball in the cache, for the unit test that serves it to tsadm's CRI client
# (test/unit/host/cri-client.test.ts); the build tree it came from is removed after the build.
stage_cri_proto() {
  local orig member
  for orig in "$CACHE"/src/kubernetes_*.orig.tar.*; do [[ $orig == *.orig-* ]] || break; done
  [[ -f $orig ]] || die "no kubernetes orig tarball in $CACHE/src"
  # The whole listing (no early exit: under pipefail a closed pipe would fail tar).
  member=$(tar -tf "$orig" | grep '/staging/src/k8s.io/cri-api/pkg/apis/runtime/v1alpha2/api.proto$' || true)
  [[ -n $member ]] || die "no cri-api v1alpha2 api.proto in $orig"
  mkdir -p "$CACHE/cri-api/v1alpha2"
  tar -xOf "$orig" "$member" >"$CACHE/cri-api/v1alpha2/api.proto.tmp"
  mv "$CACHE/cri-api/v1alpha2/api.proto.tmp" "$CACHE/cri-api/v1alpha2/api.proto"
}

# stage_standins: images that stand in for components this environment cannot have. CoreDNS: no
# image exists here (Debian has no CoreDNS); the stand-in answers CoreDNS's liveness and readiness
# probes with 200 OK and serves no DNS (scripts/e2e/images/coredns-standin.c says why it exists).
stage_standins() {
  local work=$CACHE/tmp.standins
  rm -rf "$work" && mkdir -p "$work" "$STANDIN_IMG_DIR"
  new_rootfs "$work/coredns"
  gcc -Os -static -o "$work/coredns/coredns" "$STANDIN_SRC_DIR/coredns-standin.c"
  strip "$work/coredns/coredns" 2>/dev/null || true
  write_oci_image "$IMAGE_REPO/coredns:$COREDNS_TAG" "$work/coredns" '["/coredns"]' "$STANDIN_IMG_DIR/coredns.tar"
  log "stage standins: coredns:$COREDNS_TAG (stand-in: probes only, no DNS)"
  rm -rf "$work"
}

# --- debian-sid ------------------------------------------------------------------------------
# Newer etcd and containerd than bookworm's, for tests that must hold with both (the etcd client
# against etcd 3.4 and 3.5; containerd 2 reading the host phase's drop-in). Debian's unstable
# suite of the machine's own Debian mirror, through a private apt configuration under
# $SID_DIR/apt (as stage source does for deb-src): the host's sources, lists and dpkg state are
# not touched, nothing is installed; the packages are unpacked with `dpkg-deb -x` into
# $SID_DIR/root. The binaries are Go programs that link only libc (Depends: libc6 (>= 2.34);
# bookworm has 2.36); the stage checks that ldd resolves every library and that each one runs.
apt_sid() {
  apt-get -q -o Dir::Etc::SourceList="$SID_DIR/apt/sid.sources" \
    -o Dir::Etc::SourceParts="$SID_DIR/apt/empty.d" \
    -o Dir::Etc::Preferences=/dev/null -o Dir::Etc::PreferencesParts="$SID_DIR/apt/empty.d" \
    -o Dir::State::Lists="$SID_DIR/apt/lists" \
    -o Dir::Cache="$SID_DIR/apt/cache" \
    -o Acquire::Languages=none -o APT::Architectures=amd64 "$@"
}

# sid_sources: the machine's Debian archive entry (URIs and Signed-By of the stanza that is not
# the security archive) with the suite sid, main only.
sid_sources() {
  local src=/etc/apt/sources.list.d/debian.sources
  [[ -f $src ]] || die "$src not found: cannot derive the Debian archive for the unstable suite"
  awk 'BEGIN { RS = "" }
    {
      n = split($0, l, "\n"); archive = 0
      for (i = 1; i <= n; i++) if (l[i] ~ /^URIs:.*\/debian\/?[ \t]*$/) archive = 1
      if (!archive) next
      for (i = 1; i <= n; i++) {
        if (l[i] ~ /^Suites:/) print "Suites: sid"
        else if (l[i] ~ /^Components:/) print "Components: main"
        else if (l[i] !~ /^#/) print l[i]
      }
      exit
    }' "$src"
}

# version_at_least GOT MIN: dotted versions, GOT >= MIN.
version_at_least() {
  [[ $(printf '%s\n%s\n' "$2" "$1" | sort -V | head -1) == "$2" ]]
}

stage_debian_sid() {
  local work=$SID_DIR/tmp deb b got missing
  rm -rf "$work" && mkdir -p "$SID_DIR/apt/empty.d" "$SID_DIR/apt/lists/partial" \
    "$SID_DIR/apt/cache/archives/partial" "$work/debs" "$work/root"
  sid_sources >"$SID_DIR/apt/sid.sources"
  grep -q '^URIs:' "$SID_DIR/apt/sid.sources" || die "no Debian archive entry in /etc/apt/sources.list.d/debian.sources"
  # apt's downloads run as _apt: the directory must be writable for it (else a warning and root).
  chown _apt "$work/debs" 2>/dev/null || true
  apt_sid update >"$CACHE/logs/apt-sid.log" 2>&1 || die "apt-get update (sid) failed; see $CACHE/logs/apt-sid.log"
  (cd "$work/debs" && apt_sid download "${SID_PACKAGES[@]}") >>"$CACHE/logs/apt-sid.log" 2>&1 ||
    die "apt-get download ${SID_PACKAGES[*]} (sid) failed; see $CACHE/logs/apt-sid.log"
  : >"$work/packages.txt"
  for deb in "$work"/debs/*.deb; do
    dpkg-deb -x "$deb" "$work/root"
    printf '%s %s (Depends: %s)\n' "$(dpkg-deb -f "$deb" Package)" "$(dpkg-deb -f "$deb" Version)" \
      "$(dpkg-deb -f "$deb" Depends)" >>"$work/packages.txt"
  done
  log "stage debian-sid: $(cut -d' ' -f1,2 "$work/packages.txt" | tr '\n' ' ')"
  # Runs here: every library resolved, and each binary answers its version command.
  for b in etcd etcdctl etcdutl containerd ctr containerd-shim-runc-v2; do
    [[ -x $work/root/usr/bin/$b ]] || die "debian-sid: usr/bin/$b missing from the packages"
    missing=$(ldd "$work/root/usr/bin/$b" 2>&1 | grep 'not found' || true)
    [[ -z $missing ]] || die "debian-sid: $b needs a library the host lacks: $missing"
  done
  got=$("$work/root/usr/bin/etcd" --version 2>&1) || die "debian-sid: etcd does not run here: $got"
  got=$(sed -n 's/^etcd Version: //p' <<<"$got")
  version_at_least "$got" "$SID_ETCD_MIN" || die "debian-sid: etcd '$got', expected >= $SID_ETCD_MIN"
  [[ $("$work/root/usr/bin/etcdctl" version) == "etcdctl version: $got"* ]] || die "debian-sid: etcdctl is not $got"
  [[ $("$work/root/usr/bin/etcdutl" version) == "etcdutl version: $got"* ]] || die "debian-sid: etcdutl is not $got"
  got=$("$work/root/usr/bin/containerd" --version 2>&1) || die "debian-sid: containerd does not run here: $got"
  got=$(awk '{ print $3 }' <<<"$got")
  version_at_least "$got" "$SID_CONTAINERD_MIN" || die "debian-sid: containerd '$got', expected >= $SID_CONTAINERD_MIN"
  "$work/root/usr/bin/ctr" --version >/dev/null || die "debian-sid: ctr does not run"
  "$work/root/usr/bin/containerd" --config /dev/null config dump >/dev/null || die "debian-sid: containerd config dump failed"
  log "stage debian-sid: etcd $("$work/root/usr/bin/etcd" --version | sed -n 's/^etcd Version: //p'), containerd $got run here"
  got=$("$work/root/usr/lib/go-$SID_GO/bin/go" version 2>&1) || die "debian-sid: go does not run here: $got"
  [[ $got == "go version go$SID_GO."* ]] || die "debian-sid: '$got', expected go$SID_GO"
  [[ -f $work/root/usr/lib/go-$SID_GO/src/crypto/x509/x509.go ]] || die "debian-sid: Go $SID_GO's standard library source is missing"
  log "stage debian-sid: $got runs here"
  # Swap in the new tree; the .deb files and the index go (a re-run fetches them again in seconds).
  rm -rf "$SID_DIR/root" "$SID_DIR/packages.txt"
  mv "$work/root" "$SID_DIR/root"
  mv "$work/packages.txt" "$SID_DIR/packages.txt"
  rm -rf "$work" "$SID_DIR/apt/lists" "$SID_DIR/apt/cache"
}

# --- profiles --------------------------------------------------------------------------------
# Which stages a profile runs, in order (a later stage may read what an earlier one made).
#   cluster  what `npm run cluster` needs: the v1.20.2 components and their images
#   unit     what the unit project uses: the reference kubeadm, kube-apiserver and kubectl of
#            v1.20.2, kubelet 1.20's CRI schema, etcd 3.5 and containerd 2 (no images: no machine)
#   all      everything the tests use (npm test runs the unit and e2e projects): also the
#            relabelled v1.20.3 and its images (test/e2e/upgrade.e2e.test.ts) and the CoreDNS
#            stand-in (test/e2e/upgrade.e2e.test.ts, test/e2e/images.e2e.test.ts)
PROFILE=all
LIST=''
STAGES=()
# Who uses each stage (for --list).
declare -A USED_BY=(
  [packages]='everything'
  [source]='stage build'
  [build]='npm run cluster; every e2e test; the unit oracles (kubeadm, kube-apiserver, kubectl)'
  [cri-proto]='test/unit/host/cri-client.test.ts'
  [images]='npm run cluster; every e2e test'
  [build-relabelled]='test/e2e/upgrade.e2e.test.ts (the second version)'
  [images-v1.20.3]='test/e2e/upgrade.e2e.test.ts'
  [standins]='test/e2e/upgrade.e2e.test.ts, test/e2e/images.e2e.test.ts'
  [debian-sid]='etcd 3.5 for the real-etcd unit tests (test/helpers/etcd-process.ts), containerd 2 (test/unit/phases/host/containerd.real-containerd.test.ts), Go 1.26 for the CSR reader (test/unit/pki/csr.go-differential.test.ts)'
)

parse_args() {
  local a
  for a in "$@"; do
    case $a in
      all | cluster | unit) PROFILE=$a ;;
      --list) LIST=1 ;;
      -h | --help) sed -n '2,12p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
      *) die "unknown argument '$a': use [all|cluster|unit] [--list]" ;;
    esac
  done
  case $PROFILE in
    cluster)
      STAGES=(packages source build images)
      APT_PACKAGES=("${CLUSTER_PACKAGES[@]}") ;;
    unit)
      STAGES=(packages source build cri-proto debian-sid)
      APT_PACKAGES=("${CLUSTER_PACKAGES[@]}" "${UNIT_PACKAGES[@]}") ;;
    all)
      STAGES=(packages source build cri-proto images build-relabelled images-v1.20.3 standins debian-sid)
      APT_PACKAGES=("${CLUSTER_PACKAGES[@]}" "${UNIT_PACKAGES[@]}" "${E2E_PACKAGES[@]}") ;;
  esac
}

wants() { [[ " ${STAGES[*]} " == *" $1 "* ]]; }

# stage NAME STAMP-NAME VERSION FUNCTION [ARG...]: run_stage when the profile has NAME; under
# --list, one line saying whether it would run.
stage() {
  local name=$1 stamp_name=$2 version=$3
  wants "$name" || return 0
  if [[ -n $LIST ]]; then
    local state='to run'
    [[ -f $STAMPS/$stamp_name-$version ]] && state="cached ($(cat "$STAMPS/$stamp_name-$version"))"
    printf '%-17s %-26s %s\n    used by: %s\n' "$name" "$stamp_name-$version" "$state" "${USED_BY[$name]}"
    return 0
  fi
  shift 2
  run_stage "$stamp_name" "$@"
}

main() {
  parse_args "$@"
  if [[ -n $LIST ]]; then
    echo "profile $PROFILE, cache $CACHE:"
    local missing
    missing=$(missing_packages | tr '\n' ' ')
    printf '%-17s %-26s %s\n    used by: %s\n' packages "${#APT_PACKAGES[@]} apt packages" \
      "${missing:+to install: }${missing:-all installed}" "${USED_BY[packages]}"
  else
    mkdir -p "$CACHE/logs"
    log "cache: $CACHE (Kubernetes $K8S_VERSION), profile $PROFILE: ${STAGES[*]}"
    stage_packages
  fi
  stage source source "$K8S_VERSION" stage_source
  stage build build "$K8S_VERSION" stage_build
  stage cri-proto cri-proto "$K8S_VERSION" stage_cri_proto
  if [[ -z $LIST ]]; then
    [[ -x $BIN_DIR/kubeadm ]] || die "$BIN_DIR/kubeadm missing although the build stamp exists; remove $STAMPS to rebuild"
  fi
  stage images images "$K8S_VERSION" stage_images "$K8S_VERSION"
  [[ -n $LIST ]] || ! wants images || log "ready: binaries in $BIN_DIR, images in $IMG_DIR"
  stage build-relabelled build-relabelled "$UPGRADE_VERSION" stage_build_relabelled
  if [[ -z $LIST ]] && wants build-relabelled; then
    [[ -x $UPGRADE_BIN_DIR/kubeadm ]] ||
      die "$UPGRADE_BIN_DIR/kubeadm missing although its build stamp exists; remove $STAMPS/build-relabelled-$UPGRADE_VERSION to rebuild"
  fi
  stage images-v1.20.3 images "$UPGRADE_VERSION" stage_images "$UPGRADE_VERSION"
  [[ -n $LIST ]] || ! wants images-v1.20.3 ||
    log "ready: $UPGRADE_VERSION (relabelled $K8S_VERSION) binaries in $UPGRADE_BIN_DIR, images in $UPGRADE_IMG_DIR"
  # Keyed by the stand-ins' source, so a changed stand-in is rebuilt.
  stage standins standins "$(cat "$STANDIN_SRC_DIR"/*.c | sha256sum | cut -c1-12)" stage_standins
  [[ -n $LIST ]] || ! wants standins || log "ready: stand-in images in $STANDIN_IMG_DIR"
  stage debian-sid debian-sid "etcd$SID_ETCD_MIN-containerd$SID_CONTAINERD_MIN-go$SID_GO" stage_debian_sid
  if [[ -z $LIST ]] && wants debian-sid; then
    [[ -x $SID_DIR/root/usr/bin/etcd && -x $SID_DIR/root/usr/bin/containerd && -x $SID_DIR/root/usr/lib/go-$SID_GO/bin/go ]] ||
      die "$SID_DIR/root/usr/bin/{etcd,containerd} or usr/lib/go-$SID_GO/bin/go missing although the stamp exists; remove $STAMPS/debian-sid-* to fetch them again"
    log "ready: $(cut -d' ' -f1,2 "$SID_DIR/packages.txt" | tr '\n' ' ')in $SID_DIR/root"
  fi
  [[ -n $LIST ]] || log "profile $PROFILE ready"
}

main "$@"
