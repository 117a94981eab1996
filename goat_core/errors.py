"""GOAT Explorer's own errors: every problem a user can cause raises a :class:`GoatError`, which front ends
show as one line (anything else is a bug, with its traceback). Each also derives from the built-in it
refines (``ValueError``, ``KeyError``, ...)."""

from __future__ import annotations

# Every character str.splitlines() breaks at, as its escape: a name quoted from a file stays on the line
LINE_BREAKS = {ord(c): repr(c)[1:-1] for c in "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"}


class GoatError(Exception):
    """Base of every error a user can cause; ``str(err)`` is one line, ready to show (a line break in a
    value it quotes, a name or a 2-D array's repr, shown as its escape)."""

    def __str__(self) -> str:
        return super().__str__().translate(LINE_BREAKS)


class GraphFormatError(GoatError, ValueError):
    """Bad input: the file, the line (if any) and the problem, as one line ``FILE:LINE: problem``
    (a line break quoted from the file shown as its escape, ``\\n``)."""

    def __init__(self, file: str, problem: str, line: int | None = None):
        self.file = str(file)
        self.line = line
        self.problem = problem
        where = self.file if line is None else f"{self.file}:{line}"
        super().__init__(f"{where}: {problem}".translate(LINE_BREAKS))


class ParameterError(GoatError, ValueError):
    """A parameter outside what it must be; the message says what it must be and what it was."""


class UnknownNodeError(GoatError, KeyError):
    """A node name or index the graph does not have."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]).translate(LINE_BREAKS) if self.args else "unknown node"


class NotFittedError(GoatError, RuntimeError):
    """A model asked for answers before ``fit`` (or ``Goat.load``)."""


class TrainingCancelled(GoatError):
    """Raised by a callback (or returned False from it) to stop training early."""


class TrainingDiverged(GoatError, FloatingPointError):
    """The loss stopped being a finite number: the model's numbers are no longer usable."""
