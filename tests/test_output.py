"""Atomic output writing (auditor.formats.output)."""
from __future__ import annotations

import stat

import pytest

from auditor.errors import OutputError
from auditor.formats.output import check_writable, write_files


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


# ------------------------------------------------------------- outputs written as a set

import errno
import os
import signal
import subprocess
import sys
from pathlib import Path

import auditor.formats.output as output
from auditor.formats.output import recover_stale


def listing(directory: Path) -> dict[str, str]:
    return {path.name: path.read_text() for path in sorted(directory.iterdir())}


@pytest.fixture
def previous(tmp_path) -> Path:
    """A complete earlier report plus a file of the user's that auditor does not write."""
    outdir = tmp_path / "report"
    write_files(outdir, {"audit.json": "old json", "summary.md": "old md"})
    (outdir / "notes.txt").write_text("mine")
    return outdir


def test_existing_outdir_is_replaced_as_a_set_keeping_other_files(previous, tmp_path):
    write_files(previous, {"audit.json": "new json", "summary.md": "new md"})
    assert listing(previous) == {"audit.json": "new json", "notes.txt": "mine", "summary.md": "new md"}
    assert [p.name for p in tmp_path.iterdir()] == ["report"]


def test_disk_full_on_the_second_file_leaves_the_previous_report_and_no_stray_files(previous, tmp_path, monkeypatch):
    written = []
    original = output._write

    def fill_disk(path, data):
        if written:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        written.append(path)
        original(path, data)

    monkeypatch.setattr(output, "_write", fill_disk)
    with pytest.raises(OutputError, match="No space left on device.*nothing was written"):
        write_files(previous, {"audit.json": "new json", "summary.md": "new md"})
    assert listing(previous) == {"audit.json": "old json", "notes.txt": "mine", "summary.md": "old md"}
    assert [p.name for p in tmp_path.iterdir()] == ["report"]  # no staging directory, no .tmp file


def test_failed_write_does_not_create_a_new_outdir_or_its_parents(tmp_path, monkeypatch):
    def fail(path, data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(output, "_write", fail)
    with pytest.raises(OutputError):
        write_files(tmp_path / "a" / "b" / "report", {"audit.json": "x"})
    assert list(tmp_path.iterdir()) == []


def test_failed_run_does_not_create_a_new_outdir(write, tmp_path):
    from click.testing import CliRunner

    from auditor.cli import cli

    gold = write("gold.tsv", "id\tlabel\n1\tpos\n2\tneg\n")
    system = write("sys.tsv", "id\tlabel\n1\tpos\n3\tneg\n")  # id 3 is not in gold
    result = CliRunner().invoke(cli, ["report", gold, system, "-o", str(tmp_path / "out"), "--format", "json"])
    assert result.exit_code == 2 and result.stderr.startswith("auditor: error:")
    assert not (tmp_path / "out").exists()


def test_without_the_atomic_exchange_two_renames_are_used(previous, tmp_path, monkeypatch):
    monkeypatch.setattr(output, "_renameat2", lambda: None)
    write_files(previous, {"audit.json": "new json", "summary.md": "new md"})
    assert listing(previous) == {"audit.json": "new json", "notes.txt": "mine", "summary.md": "new md"}
    assert [p.name for p in tmp_path.iterdir()] == ["report"]


KILLED_BETWEEN_RENAMES = """
import os, signal, sys
import auditor.formats.output as output
output._renameat2 = lambda: None          # force the two-rename swap
real_rename = os.rename
calls = []
def rename(source, destination):
    calls.append(source)
    if len(calls) == 2:                     # OUTDIR is aside, the new one not yet in place
        os.kill(os.getpid(), signal.SIGKILL)
    real_rename(source, destination)
os.rename = rename
output.write_files(sys.argv[1], {"audit.json": "new json", "summary.md": "new md"})
"""


def test_sigkill_between_renames_leaves_no_mix_and_the_next_run_recovers(previous, tmp_path):
    # cwd away from the checkout: the child imports the installed package, not ./auditor
    child = subprocess.run([sys.executable, "-c", KILLED_BETWEEN_RENAMES, str(previous)], timeout=60, cwd=tmp_path)
    assert child.returncode == -signal.SIGKILL
    # Killed with OUTDIR moved aside: no directory holds a mix of old and new files.
    for directory in tmp_path.iterdir():
        contents = listing(directory)
        assert contents.get("audit.json", "")[:3] == contents.get("summary.md", "")[:3]
    recover_stale(previous)  # what the next run does first
    assert listing(previous) == {"audit.json": "old json", "notes.txt": "mine", "summary.md": "old md"}
    assert [p.name for p in tmp_path.iterdir()] == ["report"]


def test_staging_left_by_a_killed_run_is_removed_by_the_next_one(previous, tmp_path):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    stale = tmp_path / f"report.auditor-tmp-{dead.stdout.strip()}-x1y2"
    stale.mkdir()
    (stale / "audit.json").write_text("half")
    alive = tmp_path / f"report.auditor-tmp-{os.getppid()}-busy"  # a run still going: left alone
    alive.mkdir()
    write_files(previous, {"audit.json": "new json"})
    assert not stale.exists() and alive.exists()
    assert listing(previous)["audit.json"] == "new json"


SLOW_REPORT = """
import sys, time
import auditor.formats.output as output
real_write = output._write
def slow(path, data):
    real_write(path, data)
    open(sys.argv[2], "w").close()          # tell the test we are half-way
    time.sleep(60)
output._write = slow
from auditor.cli import cli
cli.main(["report", *sys.argv[3:], "-o", sys.argv[1], "--format", "json,md", "--bootstrap", "0", "--quiet"])
"""


def test_sigterm_while_writing_leaves_the_previous_report_and_no_staging(previous, tmp_path, write):
    gold = write("in/gold.tsv", "id\tlabel\n1\tpos\n2\tneg\n3\tpos\n")
    system = write("in/sys.tsv", "id\tlabel\n1\tpos\n2\tpos\n3\tpos\n")
    flag = tmp_path / "in" / "half-way"
    child = subprocess.Popen([sys.executable, "-c", SLOW_REPORT, str(previous), str(flag), gold, system],
                             stderr=subprocess.PIPE, text=True, cwd=tmp_path)  # the installed package, not ./auditor
    for _ in range(600):
        if flag.exists() or child.poll() is not None:
            break
        import time

        time.sleep(0.1)
    assert flag.exists(), child.stderr.read() if child.poll() is not None else "child did not reach the write"
    child.send_signal(signal.SIGTERM)
    _, stderr = child.communicate(timeout=60)
    assert child.returncode == 143
    assert stderr.strip() == "auditor: error: terminated; nothing was written"
    assert listing(previous) == {"audit.json": "old json", "notes.txt": "mine", "summary.md": "old md"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in", "report"]


def test_working_directory_as_outdir_is_written_file_by_file(tmp_path, monkeypatch):
    (tmp_path / "audit.json").write_text("old")
    monkeypatch.chdir(tmp_path)
    write_files(".", {"audit.json": "new", "summary.md": "md"})
    assert listing(tmp_path) == {"audit.json": "new", "summary.md": "md"}
    assert Path.cwd() == tmp_path.resolve() and Path.cwd().exists()


def test_report_command_replaces_a_previous_report_and_says_what_it_wrote_even_when_quiet(write, tmp_path):
    from click.testing import CliRunner

    from auditor.cli import cli

    gold = write("gold.tsv", "id\tlabel\n1\tpos\n2\tneg\n3\tpos\n")
    system = write("sys.tsv", "id\tlabel\n1\tpos\n2\tpos\n3\tpos\n")
    outdir = tmp_path / "out"
    for _ in range(2):
        result = CliRunner().invoke(cli, ["report", gold, system, "-o", str(outdir), "--format", "json,md",
                                          "--bootstrap", "0", "--quiet"])
        assert result.exit_code == 0, result.output
        assert result.stderr == f"wrote {outdir / 'audit.json'}, {outdir / 'summary.md'}\n"
    assert sorted(p.name for p in outdir.iterdir()) == ["audit.json", "summary.md"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["gold.tsv", "out", "sys.tsv"]


def test_a_file_that_cannot_be_hard_linked_is_copied_across(previous, monkeypatch):
    def refuse(*args, **kwargs):
        raise PermissionError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(output.os, "link", refuse)
    write_files(previous, {"audit.json": "new json"})
    assert listing(previous) == {"audit.json": "new json", "notes.txt": "mine", "summary.md": "old md"}
