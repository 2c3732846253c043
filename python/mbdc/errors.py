"""The exceptions of the mbdc package."""

import re

_LOCATED = re.compile(r"^(.*?):(\d+):(\d+): (error|warning|note): (.*)$")


class MbdcError(Exception):
    """Base class: mbdc could not be run, or failed for a reason other than the model (exit
    status 2, usage or I/O; 3, an internal error)."""

    def __init__(self, message, command=None, returncode=None, output=""):
        super().__init__(message)
        self.message = message
        self.command = command
        self.returncode = returncode
        self.output = output


class ModelError(MbdcError):
    """mbdc rejected the model (exit status 1). str() is mbdc's own report, every diagnostic
    `file:line:col: error: ...`; .diagnostics holds them as (file, line, column, severity,
    text) tuples, errors and warnings alike."""

    def __init__(self, message, command=None, returncode=None, output=""):
        super().__init__(message, command, returncode, output)
        self.diagnostics = []
        for line in output.splitlines():
            m = _LOCATED.match(line)
            if m:
                self.diagnostics.append((m.group(1), int(m.group(2)), int(m.group(3)),
                                         m.group(4), m.group(5)))

    @property
    def errors(self):
        """The diagnostics of severity 'error'."""
        return [d for d in self.diagnostics if d[3] == "error"]


class CompileError(MbdcError):
    """The C compiler failed on the generated code (or could not be run). str() shows the
    command and the compiler's output."""


class DynamicsError(ArithmeticError):
    """A generated function returning int reported a failure (a negative status: a singular
    system or a non-finite output) for some states. .function is its name, .status the status
    (an int for one state, an array over the batch shape), .failed the indices of the states
    that failed (tuples for a batch of more than one dimension; [()] for a single state)."""

    def __init__(self, message, function=None, status=None, failed=()):
        super().__init__(message)
        self.function = function
        self.status = status
        self.failed = failed
