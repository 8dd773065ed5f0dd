"""Shared fixtures."""
from __future__ import annotations

import collections
import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import settings

#: Hypothesis for every property test: no per-example deadline (a machine shared with other jobs runs an example
#: in 10x its quiet time, and a deadline then fails a correct test); 100 examples unless a test sets its own.
settings.register_profile("auditor", deadline=None, max_examples=100)
settings.load_profile("auditor")

#: The systems whose confusion matrices ``germeval_extras`` writes.
GERMEVAL_MATRICES = ("word-logreg", "char-svm-balanced")

#: Real evaluation data (``../shared/data`` beside the checkout, as CI has it; never copied into the project).
#: ``AUDITOR_SHARED_DATA`` names another place.
SHARED_DATA = Path(os.environ.get("AUDITOR_SHARED_DATA")
                   or Path(__file__).resolve().parents[2] / "shared" / "data")


@pytest.fixture(autouse=True)
def _registry_restored():
    """A metric a test registers (a plugin) does not outlive the test: later reports would carry it
    (an extra row pushed the GermEval PDF past its page budget in the full run)."""
    from auditor.metrics.registry import REGISTRY

    saved = (dict(REGISTRY.metrics), dict(REGISTRY.aliases), dict(REGISTRY.alias_notes))
    yield
    for table, before in zip((REGISTRY.metrics, REGISTRY.aliases, REGISTRY.alias_notes), saved):
        table.clear()
        table.update(before)


#: JVM options for the tests' Spark driver: the C1 compiler only and the serial collector halve the JVM's CPU
#: seconds on the suite's short jobs (54 s -> 28 s for test_engines' Spark tests, measured from /proc); the figures
#: are the engine's, which the JVM's compiler does not change.
SPARK_TEST_JVM = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"


@pytest.fixture(scope="session")
def spark_session():
    """One local Spark session for the whole run (the engine's ``getOrCreate()`` reuses it), with a JVM tuned
    for short jobs (:data:`SPARK_TEST_JVM`), stopped at the end; skips where PySpark or Java is absent."""
    pytest.importorskip("pyspark", reason="PySpark is not installed (pip install 'auditor[spark]')")
    from auditor.engines.spark import check_java
    from auditor.errors import UsageError

    try:
        check_java()
    except UsageError as error:
        pytest.skip(str(error))
    from pyspark.sql import SparkSession

    session = (SparkSession.builder.master("local[2]").appName("auditor-tests")
               .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
               .config("spark.driver.extraJavaOptions", SPARK_TEST_JVM).getOrCreate())
    yield session
    session.stop()


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The shared evaluation data folder (``../shared/data``); the test is skipped, with the reason, where it is
    absent (a user's checkout). Every test that reads real data takes it through this fixture."""
    if not (SHARED_DATA / "README.md").is_file():
        pytest.skip(f"real evaluation data not here: {SHARED_DATA} is absent (CI has ../shared/data beside the "
                    "checkout; set AUDITOR_SHARED_DATA to point elsewhere)")
    return SHARED_DATA


@pytest.fixture(scope="session")
def germeval_dir(shared_data) -> Path:
    """GermEval-2018 fine-grained task: ``gold.tsv`` and ``systems/*.tsv`` (``id<TAB>label``, header), 3,532 items,
    4 classes, 8 systems (shared data, read in place)."""
    return shared_data / "germeval2018"


@pytest.fixture(scope="session")
def germeval_extras(germeval_dir, shared_data, tmp_path_factory) -> Path:
    """Files derived from GermEval-2018 by the project's code at test time (never committed), in a session folder:

    * ``confusion/word-logreg.tsv``, ``confusion/char-svm-balanced.tsv``: two systems' confusion matrices (rows
      gold, columns predicted, sorted labels), counted here with plain Python so the audit is not under test;
    * ``slices.tsv``: ``id<TAB>group``, how each test tweet addresses other users (:func:`germeval.address`);
    * ``scores/word-nb.tsv``: per-class probabilities of word-nb (TF-IDF + multinomial naive Bayes, ~1 s to
      train; its argmax is ``systems/word-nb.tsv``).
    """
    pytest.importorskip("sklearn", reason="the GermEval scores need scikit-learn (the test extra)")
    from auditor.datasets import germeval

    out = tmp_path_factory.mktemp("germeval-extras")
    gold = _labels(germeval_dir / "gold.tsv")
    labels = sorted(set(gold.values()))
    (out / "confusion").mkdir()
    for name in GERMEVAL_MATRICES:
        predicted = _labels(germeval_dir / "systems" / f"{name}.tsv")
        pairs = collections.Counter((gold[i], predicted[i]) for i in gold)
        rows = ["gold\\predicted\t" + "\t".join(labels)]
        rows += [g + "\t" + "\t".join(str(pairs[g, p]) for p in labels) for g in labels]
        (out / "confusion" / f"{name}.tsv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    (out / "slices.tsv").write_text(germeval.slices(shared_data / "germeval2018"), encoding="utf-8")
    (out / "scores").mkdir()
    (out / "scores" / "word-nb.tsv").write_text(germeval.scores(shared_data / "germeval2018", "word-nb"),
                                                encoding="utf-8")
    return out


@pytest.fixture(scope="session")
def germeval_pilot(germeval_dir):
    """``germeval_pilot(*names)``: Counts of the first 800 GermEval-2018 items of the gold and the systems
    ``names`` (a fixed pilot subset for the planner)."""
    from auditor.io.counts import Counts
    from auditor.io.load import read_labels
    from auditor.io.validate import align

    def make(*names: str) -> Counts:
        table = align(read_labels(germeval_dir / "gold.tsv"),
                      [(name, read_labels(germeval_dir / "systems" / f"{name}.tsv")) for name in names], None)
        counts = table.counts()
        gold, predictions = counts.gold[:800], counts.predictions[:, :800]
        confusion = np.zeros((len(names), counts.k, counts.k), dtype=np.int64)
        for s in range(len(names)):
            np.add.at(confusion[s], (gold, predictions[s]), 1)
        return Counts(counts.labels, counts.systems, gold, predictions, confusion)

    return make


@pytest.fixture(scope="session")
def semeval2018_dir(shared_data) -> Path:
    """SemEval-2018 Task 12 official results: ``gold/truth.txt``, ``submissions/*.txt`` and
    ``submissions/metadata-public.xml`` (shared data, read in place)."""
    return shared_data / "semeval2018-task12"


@pytest.fixture(scope="session")
def uner_dir(shared_data, tmp_path_factory) -> Path:
    """UNER English-EWT laid out by :func:`auditor.datasets.uner.lay_out`: ``gold.iob2`` (the test split) and
    ``systems/*.iob2``, five taggers trained on the dev split (two CRFs: ~6 s of CPU, once per session)."""
    pytest.importorskip("sklearn_crfsuite", reason="the UNER taggers need sklearn-crfsuite (the test extra)")
    from auditor.datasets import uner

    out = tmp_path_factory.mktemp("uner-english-ewt")
    uner.lay_out(shared_data / "uner-english-ewt", out)
    return out


@pytest.fixture(scope="session")
def wmt21_dir(shared_data, tmp_path_factory) -> Path:
    """WMT21 TED MQM (English to German) laid out by :func:`auditor.datasets.wmt21.lay_out`: ``ref.txt``,
    ``systems/*.txt`` (13 systems, 529 segments) and ``human.tsv`` (MQM per segment)."""
    from auditor.datasets import wmt21

    out = tmp_path_factory.mktemp("wmt21-ted-ende")
    wmt21.lay_out(shared_data / "wmt21-ted-mqm", out)
    return out


@pytest.fixture(scope="session")
def small_report(tmp_path_factory):
    """All five outputs of :func:`synthetic.small_audit` (hostile label and system names), rendered once for the
    run (a PDF costs ~5 s of CPU): ``audit``, ``dir``, ``written``, ``calls`` (the keyword arguments
    weasyprint.HTML got), ``pdf_text`` and ``html``. Read it; never write into ``dir``."""
    import weasyprint
    from pypdf import PdfReader
    from synthetic import small_audit

    import auditor

    calls = []
    original = weasyprint.HTML

    def spy(*args, **kwargs):
        calls.append(kwargs)
        return original(*args, **kwargs)

    outdir = tmp_path_factory.mktemp("small-report")
    result = small_audit()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(weasyprint, "HTML", spy)
        written = auditor.render(result, outdir)
    pdf_text = "\n".join(page.extract_text() for page in PdfReader(outdir / "report.pdf").pages)
    return {"audit": result, "dir": outdir, "written": written, "calls": calls, "pdf_text": pdf_text,
            "html": (outdir / "report.html").read_text(encoding="utf-8")}


@pytest.fixture
def write(tmp_path):
    """Write a file under ``tmp_path``: ``write("gold.tsv", "id\\tlabel\\n...")`` -> its path
    as a str. ``bytes`` are written as they are; ``str`` as UTF-8 without newline translation."""

    def _write(name: str, content: str | bytes) -> str:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_bytes(content.encode("utf-8"))
        return str(path)

    return _write


def _labels(path: Path) -> dict[str, str]:
    """``id -> label`` of an ``id<TAB>label`` file with a header, read with plain Python (the loader is not under
    test here)."""
    lines = [line.rstrip("\n").split("\t") for line in path.open(encoding="utf-8") if line.strip()]
    return dict(lines[1:])


@pytest.fixture(scope="session")
def germeval_counts(germeval_dir):
    """Counts of GermEval-2018: gold.tsv and systems/*.tsv, read with plain Python."""
    from auditor.io.counts import count

    gold = _labels(germeval_dir / "gold.tsv")
    ids = list(gold)
    systems = {path.stem: np.array([table[i] for i in ids])
               for path in sorted((germeval_dir / "systems").glob("*.tsv"))
               for table in [_labels(path)]}
    return count(np.array([gold[i] for i in ids]), systems)
