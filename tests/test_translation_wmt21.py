"""WMT21 TED (English to German, 13 systems, MQM) through the translation audit (issue 36): MacroF's interval is as
wide as the segment jackknife says (recounted here without each segment), and the primary metric is not chosen on
an agreement lead that the paired interval of the τ difference does not support."""
from __future__ import annotations

import numpy as np
import pytest

from auditor.options import AuditOptions
from auditor.tasks.translation import audit
from auditor.tasks.translation.resampling import scores


@pytest.fixture(scope="module")
def wmt21(wmt21_dir):
    systems = {p.stem: str(p) for p in sorted((wmt21_dir / "systems").glob("*.txt"))}
    return audit(wmt21_dir / "ref.txt", systems, options=AuditOptions(bootstrap=200), analyses=("intervals",),
                 human=wmt21_dir / "human.tsv")


def test_online_w_macrof_interval_is_as_wide_as_the_jackknife(wmt21, wmt21_dir):
    """The jackknife by recounting: MacroF with each segment's weight 0 (529 corpora), se_J = sqrt((n − 1)/n ·
    Σ (θ_(i) − θ_(·))²); the interval's width is at least 0.85 × 2 · 1.96 · se_J (the bootstrap percentile interval
    shifted by its bias was 0.75 ×: SD 0.71 points against se_J 0.97)."""
    from auditor.tasks.translation.counting import count_corpus

    def lines(path):
        return path.read_text(encoding="utf-8").split("\n")[:wmt21.n_items]

    corpus = count_corpus([lines(wmt21_dir / "ref.txt")], {"Online-W": lines(wmt21_dir / "systems" / "Online-W.txt")},
                          "13a", False)
    n = corpus.n_segments
    left_out = scores(corpus, np.ones((n, n)) - np.eye(n), 1.0, 1.0)["macrof"][:, 0]
    se = np.sqrt((n - 1) / n * ((left_out - left_out.mean()) ** 2).sum())
    score = wmt21.metrics["Online-W"]["macrof"]
    low, high = score.lo, score.hi
    assert se == pytest.approx(0.0097, abs=0.0003)
    assert wmt21.statistics.interval_details["macrof"]["jackknife_se"][wmt21.systems.index("Online-W")] == \
        pytest.approx(se)
    assert high - low >= 0.85 * 2 * 1.959964 * se


def test_primary_metric_not_chosen_on_an_unsupported_agreement_lead(wmt21):
    """MicroF has the highest τ with MQM, but the paired interval of τ(MicroF) − τ(MacroF) contains 0: the human
    scores pick no metric and the rule without them (62% of reference types occur once: MacroF) decides."""
    human = wmt21.human
    assert human.leader == "microf" and not human.separated()
    low, high = human.leader_differences["macrof"].ci
    assert low < 0 < high
    primary = wmt21.recommendation.metrics[0]
    assert primary.id == "macrof" and primary.role == "primary"
    assert primary.reasons[0].startswith("the human scores pick no metric")
    assert {source.section for source in primary.sources} >= {"poster, Introduction", "poster, Conclusion"}


def test_segment_level_tau_is_recomputed_from_sacrebleu_and_the_mqm_file(wmt21, wmt21_dir):
    """Segment level as WMT's toolkit computes it: sacrebleu's sentence_bleu of every (system, segment) against the
    reference, the MQM score of the same pair from human.tsv, Kendall τ-b (scipy) over all rated pairs at once."""
    import sacrebleu
    import scipy.stats

    reference = (wmt21_dir / "ref.txt").read_text(encoding="utf-8").splitlines()
    human = {}
    for line in (wmt21_dir / "human.tsv").read_text(encoding="utf-8").splitlines():
        system, number, score = line.split("\t")
        if number.isdigit() and score not in ("", "None", "NA", "nan"):
            human[system, int(number)] = float(score)
    metric, people = [], []
    for path in sorted((wmt21_dir / "systems").glob("*.txt")):
        for number, hypothesis in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if (path.stem, number) in human:
                metric.append(sacrebleu.sentence_bleu(hypothesis, [reference[number - 1]]).score)
                people.append(human[path.stem, number])
    segment = wmt21.human.segment_level
    assert segment.rated == len(people) == segment.taus["bleu"].scores
    assert segment.taus["bleu"].value == pytest.approx(scipy.stats.kendalltau(metric, people).statistic, abs=1e-12)
