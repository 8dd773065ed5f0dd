"""Atomic output writing (auditor.output)."""
from __future__ import annotations

import stat

import pytest

from auditor.errors import OutputError
from auditor.output import check_writable, write_files


def test_files_get_the_mode_a_plain_open_would_give(tmp_path):
    written = write_files(tmp_path / "out", {"a.txt": "x", "b.bin": b"\x00"})
    plain = tmp_path / "plain.txt"
    plain.write_text("x")
    # mkstemp creates 0600; users expect what open(path, "w") gives (0644 under umask 022)
    expected = stat.S_IMODE(plain.stat().st_mode)
    assert [stat.S_IMODE(path.stat().st_mode) for path in written] == [expected, expected]
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["a.txt", "b.bin"]


def test_a_path_that_cannot_be_written_leaves_nothing_behind(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with pytest.raises(OutputError, match="cannot create the output directory"):
        write_files(blocker / "out", {"a.txt": "x"})
    assert blocker.read_text() == "not a directory"


def test_check_writable_refuses_before_any_work(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(OutputError, match="is a file"):
        check_writable(blocker / "deeper" / "out")
    check_writable(tmp_path / "new" / "dir")
    assert not (tmp_path / "new").exists()
