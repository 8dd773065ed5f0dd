"""``benchmarks/timing.py``, the one timing helper of every benchmark: a child's CPU seconds are its own (from
``getrusage(RUSAGE_CHILDREN)``), its output and failures come back, runs combine by their medians."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

_SPEC = importlib.util.spec_from_file_location(
    "benchmark_timing", Path(__file__).resolve().parents[1] / "benchmarks" / "timing.py")
timing = importlib.util.module_from_spec(_SPEC)
sys.modules[_SPEC.name] = timing  # dataclasses look their module up while the class is built
_SPEC.loader.exec_module(timing)

#: A child that spends 0.2 s of CPU time, then prints "done".
BUSY = "import time\nstart = time.process_time()\nwhile time.process_time() - start < 0.2:\n    pass\nprint('done')"


def test_a_child_command_is_timed_by_its_own_cpu_seconds():
    measured = timing.command([sys.executable, "-c", BUSY])
    assert measured.cpu >= 0.2  # the loop alone, start-up on top
    assert measured.wall >= 0.2 and measured.peak_mb > 1
    assert measured.output == "done\n" and measured.runs == 1


def test_a_child_s_peak_memory_is_its_own_not_the_benchmark_s():
    """Linux carries a process's peak from before ``exec`` into ``ru_maxrss``: a child forked from a benchmark
    holding 400 MB reported 400 MB for ``true``. Through the launcher it reports its own few MB."""
    import numpy as np

    held = np.ones(50_000_000)  # 400 MB touched in this process
    measured = timing.command([sys.executable, "-c", "pass"])
    assert held.sum() == 50_000_000 and measured.peak_mb < 100
    assert timing.command([sys.executable, "-c", "x = b'x' * 200_000_000"]).peak_mb > 190


def test_a_failing_command_ends_the_benchmark_with_its_error():
    with pytest.raises(SystemExit, match="no such thing"):
        timing.command([sys.executable, "-c", "import sys; sys.exit('no such thing')"])


def test_runs_combine_by_their_medians():
    runs = [timing.Timing(1.0, 1.0, peak_mb=10.0), timing.Timing(3.0, 2.0, peak_mb=30.0),
            timing.Timing(2.0, 9.0, peak_mb=20.0, output="last")]
    both = timing.median(runs)
    assert (both.wall, both.cpu, both.peak_mb, both.runs, both.output) == (2.0, 2.0, 30.0, 3, "last")


def test_a_call_is_timed_in_process_and_keeps_its_value():
    calls = []
    measured = timing.call(lambda x: calls.append(x) or len(calls), "a", repeat=3, warmup=1)
    assert calls == ["a"] * 4 and measured.value == 4 and measured.runs == 3
    assert measured.cpu >= 0 and measured.wall >= 0 and measured.peak_mb is None
