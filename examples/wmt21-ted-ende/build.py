"""Build the translation example from the WMT 2021 TED MQM annotations (data/, Apache-2.0).

Writes, in segment-id order (one line per segment that has text, 529):
  ref.txt                 the human translation `ref`, used as the reference
  systems/NAME.txt        the 13 MT systems' outputs
  human.tsv               system<TAB>line<TAB>MQM score (line: 1-based line of the text files; `None` where unrated)
The annotation file repeats a segment once per error annotation with the rated span marked by <v> and </v>;
the markers are removed and every repetition must give the same text. Run: python build.py
"""
from __future__ import annotations

import csv
import sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"
REFERENCE = "ref"
#: The score file calls the reference `ref-A`.
SCORE_NAMES = {"ref-A": REFERENCE}


def read_texts(path: Path) -> dict[str, dict[int, str]]:
    """system -> segment id -> output text (markers removed), checked to agree across annotations."""
    texts: dict[str, dict[int, str]] = defaultdict(dict)
    csv.field_size_limit(sys.maxsize)
    with path.open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE):
            text = row["target"].replace("<v>", "").replace("</v>", "")
            segment = int(row["seg_id"])
            seen = texts[row["system"]].setdefault(segment, text)
            if seen != text:
                raise SystemExit(f"{path}: system {row['system']} segment {segment} has two texts")
    return texts


def read_scores(path: Path) -> dict[str, dict[int, str]]:
    """system -> segment id -> MQM score text (`None` = unrated); lines are `system<TAB>score seg_id`."""
    scores: dict[str, dict[int, str]] = defaultdict(dict)
    lines = path.read_text(encoding="utf-8").splitlines()[1:]
    for line in lines:
        system, rest = line.split("\t")
        score, segment = rest.split(" ")
        scores[SCORE_NAMES.get(system, system)][int(segment)] = score
    return scores


def main() -> None:
    texts = read_texts(DATA / "mqm_ted_ende.tsv")
    scores = read_scores(DATA / "mqm_ted_ende.avg_seg_scores.tsv")
    segments = sorted(texts[REFERENCE])
    for system, by_segment in texts.items():
        if sorted(by_segment) != segments:
            raise SystemExit(f"system {system} has text for other segments than {REFERENCE}")
    (HERE / "systems").mkdir(exist_ok=True)
    for system, by_segment in sorted(texts.items()):
        target = HERE / "ref.txt" if system == REFERENCE else HERE / "systems" / f"{system}.txt"
        target.write_text("".join(by_segment[s].replace("\n", " ") + "\n" for s in segments), encoding="utf-8")
    rows = [f"{system}\t{line}\t{scores[system].get(segment, 'None')}\n" for system in sorted(texts)
            if system != REFERENCE for line, segment in enumerate(segments, 1)]
    (HERE / "human.tsv").write_text("".join(rows), encoding="utf-8")
    unrated = sum(r.rstrip("\n").endswith("\tNone") for r in rows)
    print(f"{len(segments)} segments, {len(texts) - 1} systems, {unrated} unrated system-segments; "
          f"{len(scores[REFERENCE])} score ids per system (ids without text are left out)")


if __name__ == "__main__":
    main()
