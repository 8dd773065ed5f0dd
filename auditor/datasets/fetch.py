"""``auditor example NAME -o DIR``: download a public dataset from its pinned commit, check every file's SHA-256,
lay it out for ``auditor report`` and return the command that reports it.

Nothing is half-written: the files are downloaded and laid out in a temporary folder beside DIR, which is renamed
to DIR only when every check has passed and every file is written. A mirror (``--base-url`` or the
``AUDITOR_EXAMPLES_URL`` environment variable) holds each dataset in a folder named after it, each file under the
name :class:`auditor.datasets.catalogue.UpstreamFile` gives it (the layout of the project's shared test data, which
a test serves on 127.0.0.1).
"""
from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Callable

from auditor.datasets.building import write_text
from auditor.datasets.catalogue import DATASETS, Dataset, UpstreamFile
from auditor.errors import FetchError, OutputError, UsageError

#: The environment variable naming a mirror to download from instead of the public repositories.
BASE_URL_VARIABLE = "AUDITOR_EXAMPLES_URL"
#: Where a public repository's file is served at a commit.
RAW_URL = "https://raw.githubusercontent.com/{repository}/{commit}/{path}"
#: Seconds to wait for a server before the download fails.
TIMEOUT = 60
#: The folder of DIR that holds the files as downloaded.
SOURCE_FOLDER = "source"


def digest(file: UpstreamFile, data: bytes) -> str:
    """The SHA-256 a file is checked by: of its bytes, or for a transcribed JSON file of its parsed content written
    canonically (keys sorted, no spaces, UTF-8)."""
    if file.transcribed:
        try:
            data = json.dumps(json.loads(data), sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
        except ValueError:
            return hashlib.sha256(data).hexdigest()
    return hashlib.sha256(data).hexdigest()


def url(dataset: Dataset, file: UpstreamFile, base_url: str | None) -> str:
    """Where a file is downloaded from: the mirror's ``BASE/NAME/FILE`` or the repository's file at the commit."""
    if base_url:
        return f"{base_url.rstrip('/')}/{dataset.name}/{file.name}"
    return RAW_URL.format(repository=dataset.repository, commit=file.commit or dataset.commit, path=file.path)


def download(address: str) -> bytes:
    """The body of a URL, or one FetchError naming it."""
    import urllib.error  # here, not at the top: every auditor command imports this module, few download
    import urllib.request

    try:
        with urllib.request.urlopen(address, timeout=TIMEOUT) as response:  # noqa: S310 - http(s) of our catalogue
            return response.read()
    except urllib.error.HTTPError as error:
        raise FetchError(f"{address}: the server answered {error.code} {error.reason}; nothing was written") from None
    except (urllib.error.URLError, OSError) as error:
        reason = getattr(error, "reason", error)
        raise FetchError(f"{address}: cannot download it ({reason}); check the network or --base-url; "
                         "nothing was written") from None


def dataset_named(name: str) -> Dataset:
    """The catalogue's dataset ``name``, or a UsageError listing the names."""
    if name not in DATASETS:
        raise UsageError(f"no example called {name!r}; the examples are {', '.join(DATASETS)}")
    return DATASETS[name]


def check_target(out: Path) -> None:
    """DIR must be new (or an empty folder) and its parent writable."""
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise OutputError(f"{out}: already exists and is not an empty folder; choose a new one")
    parent = out.resolve().parent
    if not parent.is_dir() or not os.access(parent, os.W_OK):
        raise OutputError(f"{out}: cannot write into {parent}")


def check_needs(dataset: Dataset) -> None:
    """The optional packages the dataset's builder needs are installed (before anything is downloaded)."""
    missing = [module for module in dataset.needs if importlib.util.find_spec(module) is None]
    if missing:
        raise UsageError(f"example {dataset.name} builds its illustrative systems with {', '.join(missing)}: "
                         "pip install 'auditor[examples]'")


def source_note(dataset: Dataset, base_url: str | None) -> str:
    """SOURCE.md of the laid-out folder: where every file came from, its SHA-256, the licence and the citation."""
    rows = "".join(f"| {f.path} | {f.commit or dataset.commit} | {f.sha256} |\n" for f in dataset.files)
    mirror = f"\nDownloaded through the mirror {base_url}.\n" if base_url else ""
    return (f"# {dataset.title}\n\nFetched by `auditor example {dataset.name}` from the public repository "
            f"{dataset.repository}; the files as downloaded are in `{SOURCE_FOLDER}/`, the files `auditor report` "
            f"reads were laid out from them by auditor's `{dataset.builder.__name__}`.\n{mirror}\n"
            f"Licence: {dataset.licence}.\n\nPlease cite: {dataset.citation}\n\n"
            f"| file | commit | SHA-256 |\n| --- | --- | --- |\n{rows}")


def fetch(name: str, out: Path, base_url: str | None = None,
          say: Callable[[str], None] = lambda line: None) -> list[str]:
    """Download, check and lay out dataset ``name`` into the new folder ``out``; return the report command's
    arguments (paths relative to ``out``). ``base_url`` (else ``AUDITOR_EXAMPLES_URL``) names a mirror."""
    dataset = dataset_named(name)
    base_url = base_url or os.environ.get(BASE_URL_VARIABLE) or None
    check_target(out)
    check_needs(dataset)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.resolve().parent))
    try:
        for file in dataset.files:
            address = url(dataset, file, base_url)
            data = download(address)
            found = digest(file, data)
            if found != file.sha256:
                raise FetchError(f"{address}: SHA-256 {found} is not the recorded {file.sha256} (the file changed "
                                 "upstream or the download was damaged); nothing was written")
            (staging / SOURCE_FOLDER / file.name).parent.mkdir(parents=True, exist_ok=True)
            (staging / SOURCE_FOLDER / file.name).write_bytes(data)
            say(f"{file.name}: {len(data):,} bytes, SHA-256 checked")
        say(f"laying out {dataset.name} for auditor report" + (" (training the illustrative systems)"
                                                              if dataset.needs else ""))
        arguments = dataset.builder.lay_out(staging / SOURCE_FOLDER, staging)
        write_text(staging / "SOURCE.md", source_note(dataset, base_url))
        if out.exists():
            out.rmdir()
        staging.rename(out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return arguments


def report_command(out: str, arguments: list[str]) -> str:
    """The ``auditor report`` command line for a laid-out folder ``out``: every argument that is not an option or
    the task's name is a file relative to ``out``."""
    prefix = out.rstrip("/") + "/"
    words = [a if a.startswith("-") or before == "--task" else prefix + a
             for before, a in zip([""] + arguments, arguments)]
    return " ".join(["auditor", "report", *words, "-o", prefix + "report"])
