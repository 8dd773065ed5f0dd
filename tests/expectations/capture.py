"""Write the kept figures of the three task kinds' audits: ``tests/expectations/NAME.json``.

Run from the repository root, with the data folders (the layout the ``germeval_dir``, ``uner_dir`` and
``wmt21_dir`` fixtures give)::

    python tests/expectations/capture.py germeval=DIR uner=DIR wmt21=DIR

Only numbers and identifiers are written (see :mod:`tests.figures`), never the data. Rerun it only when a figure
changes on purpose, and name every change in the commit message.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from figures import figures  # noqa: E402


def main(argv: list[str]) -> None:
    for pair in argv:
        name, folder = pair.split("=", 1)
        found = figures(name, folder)
        (HERE / f"{name}.json").write_text(json.dumps(found, indent=0, sort_keys=True) + "\n", encoding="utf-8")
        print(f"{name}: {len(found)} figures")


if __name__ == "__main__":
    main(sys.argv[1:])
