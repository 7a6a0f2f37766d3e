#!/usr/bin/env bash
# Install the pinned binaries strata drives into a project-local tool dir. A stamp file per
# tool records the version that was built, so a second run with the same pins does nothing.
#
#   scripts/install-tools.sh          kubeconform, helm, kustomize, promtool (`go install`, fast)
#   scripts/install-tools.sh server   etcd and kube-apiserver for `validate --server`: built from
#                                     the wrapper modules in scripts/server-tools/ (one-time cost
#                                     of roughly a quarter of an hour on 2 cores, then cached)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tools_dir="${STRATA_TOOLS_DIR:-$root/.tools}"
bin_dir="$tools_dir/bin"
mkdir -p "$bin_dir"

# One installer at a time per tool dir: parallel `make test` runs (worktrees sharing .tools)
# otherwise each rebuild the same binary.
if command -v flock >/dev/null; then
  exec 9>"$tools_dir/.install.lock"
  flock 9
fi

# The pins: src/strata/tools/pins.tsv, the one list strata reads too (name, package, version,
# step). "server" ones are built inside scripts/server-tools/<name>, whose go.mod (and go.sum)
# pin the same version and every dependency, so the build is reproducible.
pins=()
server_pins=()
while IFS=$'\t' read -r name module version step; do
  [[ -z "$name" || "$name" == \#* ]] && continue
  if [[ "$step" == server ]]; then server_pins+=("$name|$module|$version"); else pins+=("$name|$module|$version"); fi
done <"$root/src/strata/tools/pins.tsv"

command -v go >/dev/null || { echo "install-tools: Go is required (https://go.dev/doc/install)" >&2; exit 2; }

installed() {  # name stamp-text
  local stamp="$bin_dir/.$1.version"
  [[ -x "$bin_dir/$1" && -f "$stamp" && "$(cat "$stamp")" == "$2" ]]
}

case "${1:-}" in
  "")
    for pin in "${pins[@]}"; do
      IFS='|' read -r name module version <<<"$pin"
      if installed "$name" "$module@$version"; then
        echo "install-tools: $name $version already installed"
        continue
      fi
      echo "install-tools: go install $module@$version"
      CGO_ENABLED=0 GOBIN="$bin_dir" GOFLAGS="-trimpath" go install "$module@$version"
      echo "$module@$version" >"$bin_dir/.$name.version"
    done
    ;;
  server)
    for pin in "${server_pins[@]}"; do
      IFS='|' read -r name package version <<<"$pin"
      module_dir="$root/scripts/server-tools/$name"
      ldflags=""
      if [[ "$name" == kube-apiserver ]]; then
        # What upstream's release build stamps in, so /version reports the real release
        # (the default is v0.0.0-master).
        minor="${version#v1.}"; minor="${minor%%.*}"
        ldflags="-X k8s.io/component-base/version.gitVersion=$version -X k8s.io/component-base/version.gitMajor=1"
        ldflags+=" -X k8s.io/component-base/version.gitMinor=$minor -X k8s.io/component-base/version.gitTreeState=clean"
      fi
      # The stamp covers the wrapper module and the flags: changing either rebuilds.
      recipe="$package@$version $(cat "$module_dir/go.mod" "$module_dir/go.sum" <(echo "$ldflags") | sha256sum | cut -c1-16)"
      if installed "$name" "$recipe"; then
        echo "install-tools: $name $version already installed"
        continue
      fi
      echo "install-tools: building $name $version from scripts/server-tools/$name (one-time, slow)"
      # Build to a temporary name first: an interrupted build never leaves a binary that
      # looks installed.
      CGO_ENABLED=0 GOFLAGS="-trimpath -buildvcs=false -mod=readonly" \
        go build -C "$module_dir" -ldflags="$ldflags" -o "$bin_dir/.$name.partial" "$package"
      mv -f "$bin_dir/.$name.partial" "$bin_dir/$name"
      echo "$recipe" >"$bin_dir/.$name.version"
    done
    ;;
  *)
    echo "usage: scripts/install-tools.sh [server]" >&2
    exit 2
    ;;
esac
