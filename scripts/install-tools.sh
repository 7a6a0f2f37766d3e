#!/usr/bin/env bash
# Install the pinned binaries strata drives (kubeconform, helm, kustomize, promtool) into a
# project-local tool dir with `go install`. A stamp file per tool records the version
# that was built, so a second run with the same pins does nothing.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tools_dir="${STRATA_TOOLS_DIR:-$root/.tools}"
bin_dir="$tools_dir/bin"
mkdir -p "$bin_dir"

# name|module|version  (keep in sync with src/strata/tools/pins.py)
pins=(
  "kubeconform|github.com/yannh/kubeconform/cmd/kubeconform|v0.7.0"
  "helm|helm.sh/helm/v4/cmd/helm|v4.3.1"
  "kustomize|sigs.k8s.io/kustomize/kustomize/v5|v5.7.1"
  "promtool|github.com/prometheus/prometheus/cmd/promtool|v0.316.0"
)

command -v go >/dev/null || { echo "install-tools: Go is required (https://go.dev/doc/install)" >&2; exit 2; }

for pin in "${pins[@]}"; do
  IFS='|' read -r name module version <<<"$pin"
  stamp="$bin_dir/.$name.version"
  if [[ -x "$bin_dir/$name" && -f "$stamp" && "$(cat "$stamp")" == "$module@$version" ]]; then
    echo "install-tools: $name $version already installed"
    continue
  fi
  echo "install-tools: go install $module@$version"
  CGO_ENABLED=0 GOBIN="$bin_dir" GOFLAGS="-trimpath" go install "$module@$version"
  echo "$module@$version" >"$stamp"
done
