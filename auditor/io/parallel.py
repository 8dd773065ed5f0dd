"""Reading several input files at once, handed out in order (stage "read"): the readers of every task kind that
reads one file per system use it, so that two files parse at a time while memory holds only a few."""
from __future__ import annotations

from collections import deque
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Iterable, Iterator

from auditor.options import THREADS


def in_order(reads: Iterable[Callable[[], Any]]) -> Iterator[Any]:
    """What every read returns, in order, read by two threads (pyarrow and numpy release the GIL while they
    parse): at most ``THREADS + 1`` reads are pending beside the result handed out, so memory holds a few
    files, not all; an error is raised at its own file's turn, as reading one file after another would."""
    with ThreadPoolExecutor(THREADS) as pool:
        pending: deque = deque()
        for read in reads:
            pending.append(pool.submit(read))
            if len(pending) > THREADS:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
