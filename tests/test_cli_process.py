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


def test_tagging_score_without_intervals_loads_neither_pandas_nor_scipy(tmp_path):
    """What ``auditor score --task tagging --bootstrap 0`` needs: not pandas (pyarrow's ``to_numpy`` imported it)
    nor scipy (the bootstrap's sparse products, imported when intervals are asked for)."""
    gold = tmp_path / "gold.txt"
    gold.write_text("Ann B-PER\nLee I-PER\nmet O\n\nin O\nRome B-LOC\n", encoding="utf-8")
    system = tmp_path / "sys.txt"
    system.write_text("Ann B-PER\nLee O\nmet O\n\nin O\nRome B-LOC\n", encoding="utf-8")
    code = ("import sys\nfrom auditor.cli import cli\n"
            f"cli.main(['score', '--task', 'tagging', '--bootstrap', '0', {str(gold)!r}, {str(system)!r}], "
            "standalone_mode=False)\n"
            "print(sorted(m for m in ('pandas', 'scipy') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "span_micro_f1" in done.stdout and done.stdout.strip().endswith("[]")


def test_arrow_indices_are_read_with_their_width_and_offset():
    import pyarrow as pa

    from auditor.io.column import numpy_values  # the tagging reader's view of arrow integer columns

    tags = pa.array(["O", "B-PER", "O", "I-PER", "B-PER"]).dictionary_encode().slice(2)
    assert numpy_values(tags.indices).tolist() == [0, 2, 1]
    assert numpy_values(pa.array([5, 6, 7, 8], pa.int64()).slice(1)).tolist() == [6, 7, 8]


@pytest.mark.parametrize(("given", "expected"), [(None, "system"), ("mimalloc", "mimalloc")])
def test_the_program_has_arrow_allocate_through_the_c_library_unless_told_otherwise(given, expected):
    import os

    env = {k: v for k, v in os.environ.items() if k != "ARROW_DEFAULT_MEMORY_POOL"}
    if given:
        env["ARROW_DEFAULT_MEMORY_POOL"] = given
    code = ("from auditor.cli import main\ntry:\n    main(['--version'])\nexcept SystemExit:\n    pass\n"
            "import pyarrow\nprint(pyarrow.default_memory_pool().backend_name)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[-1] == expected
