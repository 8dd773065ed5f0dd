"""The ``auditor`` program's process set-up (:func:`auditor.cli.main`): glibc's allocator keeps freed
blocks for reuse, and the program still runs its commands and exits with their codes."""
from __future__ import annotations

import platform
import subprocess
import sys

import pytest

from auditor.cli import keep_freed_memory
from auditor.version import __version__


@pytest.mark.skipif(platform.system() != "Linux" or platform.libc_ver()[0] != "glibc", reason="glibc's mallopt")
def test_glibc_accepts_the_allocator_settings():
    assert keep_freed_memory() is True


def test_the_program_runs_its_commands_and_exit_codes():
    code = "from auditor.cli import main; main(prog_name='auditor')"
    done = subprocess.run([sys.executable, "-c", code, "--version"], capture_output=True, text=True)
    assert done.returncode == 0 and __version__ in done.stdout
    done = subprocess.run([sys.executable, "-c", code, "score", "--task", "tagging", "no-such-gold.txt", "sys.txt",
                           "-m", "nonsense"], capture_output=True, text=True)
    assert done.returncode == 2 and "unknown metric 'nonsense' for -m with --task tagging" in done.stderr
