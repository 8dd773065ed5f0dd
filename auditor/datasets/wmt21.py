"""WMT 2021 TED talks, English to German: 13 MT systems, a human reference, expert MQM scores per segment.

Freitag et al. (2021), "Experts, Errors, and Context: A Large-Scale Study of Human Evaluation for Machine
Translation", TACL 9; Apache-2.0. Source: ``ted/ende/mqm_ted_ende.tsv`` (one row per error annotation, header
``system doc doc_id seg_id rater source target category severity comment``, no quoting; the rated span is marked
``<v>``/``</v>`` in ``target``) and ``mqm_ted_ende.avg_seg_scores.tsv`` (``system<TAB>score seg_id`` after a header).

:func:`lay_out` writes, in segment-id order (one line per segment that has text, 529):

* ``ref.txt``: the human translation ``ref`` (``ref-A`` in the score file), used as the reference;
* ``systems/NAME.txt``: the 13 MT systems' outputs;
* ``human.tsv``: ``system<TAB>line<TAB>MQM score`` (line: 1-based line of the text files; ``None`` where unrated).

The markers are removed and every repetition of a segment must give the same text.
"""
from __future__ import annotations

import csv
import sys
from collections import defaultdict
from pathlib import Path

from auditor.datasets.building import write_text
from auditor.errors import InputError

#: The source files.
ANNOTATIONS, SCORES = "mqm_ted_ende.tsv", "mqm_ted_ende.avg_seg_scores.tsv"
#: The human translation used as the reference.
REFERENCE = "ref"
#: The score file calls the reference `ref-A`.
SCORE_NAMES = {"ref-A": REFERENCE}


def read_texts(path: Path) -> dict[str, dict[int, str]]:
    """System -> segment id -> output text (markers removed), checked to agree across annotations."""
    texts: dict[str, dict[int, str]] = defaultdict(dict)
    csv.field_size_limit(sys.maxsize)
    with path.open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE):
            text = row["target"].replace("<v>", "").replace("</v>", "")
            segment = int(row["seg_id"])
            seen = texts[row["system"]].setdefault(segment, text)
            if seen != text:
                raise InputError(f"{path}: system {row['system']} segment {segment} has two different texts")
    return texts


def read_scores(path: Path) -> dict[str, dict[int, str]]:
    """System -> segment id -> MQM score text (``None`` = unrated); lines are ``system<TAB>score seg_id``."""
    scores: dict[str, dict[int, str]] = defaultdict(dict)
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines()[1:], 2):
        try:
            system, rest = line.split("\t")
            score, segment = rest.split(" ")
            scores[SCORE_NAMES.get(system, system)][int(segment)] = score
        except ValueError:
            raise InputError(f"{path} line {number}: expected `system<TAB>score seg_id`, found {line!r}") from None
    return scores


def lay_out(source: Path, out: Path) -> list[str]:
    """Write ``ref.txt``, ``systems/*.txt`` and ``human.tsv`` into ``out``; return the report command's arguments."""
    texts = read_texts(source / ANNOTATIONS)
    scores = read_scores(source / SCORES)
    segments = sorted(texts[REFERENCE])
    for system, by_segment in texts.items():
        if sorted(by_segment) != segments:
            raise InputError(f"{source / ANNOTATIONS}: system {system} has text for other segments than {REFERENCE}")
    for system, by_segment in sorted(texts.items()):
        target = out / "ref.txt" if system == REFERENCE else out / "systems" / f"{system}.txt"
        write_text(target, "".join(by_segment[s].replace("\n", " ") + "\n" for s in segments))
    rows = [f"{system}\t{line}\t{scores[system].get(segment, 'None')}\n" for system in sorted(texts)
            if system != REFERENCE for line, segment in enumerate(segments, 1)]
    write_text(out / "human.tsv", "".join(rows))
    return ["--task", "translation", "ref.txt", "systems/*.txt", "--human", "human.tsv"]
