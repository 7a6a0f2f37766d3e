"""The typed error tree. The CLI turns these into exit codes in one place (cli/__init__.py)."""

from __future__ import annotations

from strata.problems import Problem


class StrataError(Exception):
    """Base for every error strata raises on purpose; anything else is a bug (exit 3)."""

    exit_code = 1


class UsageError(StrataError):
    """The command line itself is wrong (exit 2)."""

    exit_code = 2


class ProblemsFound(StrataError):
    """A run collected error-level problems (spec, policy, validation or drift)."""

    def __init__(self, problems: list[Problem]) -> None:
        super().__init__(f"{len(problems)} problem(s) found")
        self.problems = problems


class CheckFailed(StrataError):
    """`render --check` found drift or problems; its report is already printed (exit 1)."""


class ToolError(StrataError):
    """A pinned external binary (kubeconform, helm, kustomize, promtool) cannot do its job:
    an environment problem to fix on this machine, not a mistake in the spec."""


class ToolMissing(ToolError):
    """The binary is not installed."""


class ToolFailed(ToolError):
    """The binary could not be started, was killed (crashed) or ran past its time limit."""


class PackError(StrataError):
    """A pack could not be discovered or loaded; the message names the pack."""


class PackFailure(StrataError):
    """A pack's own code (check or context hook) crashed: a bug to report to its authors."""

    exit_code = 3


class OutputError(StrataError):
    """The output tree cannot be written without touching files strata does not own."""


class ControlPlaneFailed(ToolFailed):
    """The throwaway etcd + kube-apiserver of `validate --server` did not start, or refused
    the CRDs; the message has the end of its log."""
