"""Tiny Helm charts the tests package themselves with the real `helm package`, so hydration
and `kustomize --enable-helm` run offline against archives named like the pinned releases."""

from __future__ import annotations

from pathlib import Path

from strata import tools


def package_chart(workdir: Path, name: str, version: str, destination: Path, files: dict[str, str]) -> Path:
    """Write Chart.yaml plus ``files`` (paths inside the chart) under ``workdir/src/<name>``,
    package it into ``destination`` and return the archive (``<name>-<version>.tgz``)."""
    chart = workdir / "src" / name
    chart.mkdir(parents=True)
    (chart / "Chart.yaml").write_text(f"apiVersion: v2\nname: {name}\nversion: {version}\n")
    for relative, text in files.items():
        (chart / relative).parent.mkdir(parents=True, exist_ok=True)
        (chart / relative).write_text(text)
    result = tools.run("helm", ["package", str(chart), "--destination", str(destination)])
    assert result.returncode == 0, result.stderr
    return destination / f"{name}-{version}.tgz"
