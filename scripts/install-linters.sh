#!/usr/bin/env bash
# Install the outside linters `make test` runs on the rendered examples (tests/test_linters.py):
# kube-score with `go install` and checkov with pip into its own virtualenv, both pinned, both
# in the project-local tool dir. A stamp per tool records what was installed, so a second run
# with the same pins does nothing.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tools_dir="${STRATA_TOOLS_DIR:-$root/.tools}"
bin_dir="$tools_dir/bin"
mkdir -p "$bin_dir"

# One installer at a time per tool dir (worktrees and parallel runs share .tools).
if command -v flock >/dev/null; then
  exec 9>"$tools_dir/.install-linters.lock"
  flock 9
fi

# Keep in sync with tests/test_linters.py (it checks the versions the tools report).
kube_score_module="github.com/zegl/kube-score/cmd/kube-score"
kube_score_version="v1.20.0"
checkov_version="3.3.30"
python="${PYTHON:-python3}"

stamp="$bin_dir/.kube-score.version"
if [[ -x "$bin_dir/kube-score" && -f "$stamp" && "$(cat "$stamp")" == "$kube_score_module@$kube_score_version" ]]; then
  echo "install-linters: kube-score $kube_score_version already installed"
else
  command -v go >/dev/null || { echo "install-linters: Go is required (https://go.dev/doc/install)" >&2; exit 2; }
  echo "install-linters: go install $kube_score_module@$kube_score_version"
  CGO_ENABLED=0 GOBIN="$bin_dir" GOFLAGS="-trimpath" go install "$kube_score_module@$kube_score_version"
  echo "$kube_score_module@$kube_score_version" >"$stamp"
fi

venv="$tools_dir/checkov"
stamp="$venv/.checkov.version"
if [[ -x "$venv/bin/checkov" && -f "$stamp" && "$(cat "$stamp")" == "$checkov_version" ]]; then
  echo "install-linters: checkov $checkov_version already installed"
else
  echo "install-linters: pip install checkov==$checkov_version (into $venv)"
  "$python" -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "checkov==$checkov_version"
  echo "$checkov_version" >"$stamp"
fi
