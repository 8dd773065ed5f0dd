"""Exceptions with one voice: every failure the user can cause is an ``AuditorError``.

The CLI turns these into one message and a non-zero exit code in one place
(:func:`auditor.cli.main`); nothing else calls ``sys.exit``.
"""
from __future__ import annotations


class AuditorError(Exception):
    """Base class of every error auditor reports to the user."""

    exit_code = 1


class InputError(AuditorError):
    """A gold or system file (or array) is missing, unreadable or malformed.

    Messages name the source, the line or id, what was expected and what was found:
    ``gold.tsv line 17: empty label; every line needs `id<TAB>label```.
    """

    exit_code = 2


class UsageError(AuditorError):
    """Options that cannot be honoured together (unknown metric id, bad ``--labels``...)."""

    exit_code = 2


class OutputError(AuditorError):
    """An output path cannot be written; nothing was written."""

    exit_code = 3


class FetchError(AuditorError):
    """A public dataset could not be downloaded, or a downloaded file is not the recorded one; nothing was
    written."""

    exit_code = 4
