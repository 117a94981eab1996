"""The one error type for bad graph and label input."""

from __future__ import annotations


class GraphFormatError(ValueError):
    """Bad input: carries the file, the line (when one applies) and the problem.

    ``str(err)`` is one line, ``FILE:LINE: problem`` (or ``FILE: problem``), ready for a
    terminal or a UI message.
    """

    def __init__(self, file: str, problem: str, line: int | None = None):
        self.file = str(file)
        self.line = line
        self.problem = problem
        where = self.file if line is None else f"{self.file}:{line}"
        super().__init__(f"{where}: {problem}")
