"""The tagging demo: simulated news sentences with named entities (IOB2) and six taggers with typical errors.

Sentences come from templates with entity slots filled by names the generator makes up from syllables (people
of one or two tokens, organisations of two or three, places of one or two, rarer miscellaneous names). Each
tagger decides, entity by entity, one outcome — right, wrong type, wrong boundary, missed — from its own
per-type outcome shares, at a quantile that one latent difficulty per entity shares between taggers
(:mod:`auditor.demo.simulate`), and adds a few false alarms:

- ``crf`` is strong: few errors of every kind;
- ``bilstm-spans`` finds entities but often cuts multi-token names short or swallows a neighbour (boundary errors);
- ``type-confused`` finds the spans but mixes organisations and places up (type confusions);
- ``cautious`` tags only what it is sure of: high precision, many missed entities, most of the rare type;
- ``crf-iob1`` is ``crf``'s twin whose output starts chunks with ``I-`` (IOB1 habits, ill-formed in IOB2):
  conlleval's rule reads those chunks, the strict rule drops them;
- ``capitalised`` tags every run of capitalised words as a person (the sentence's first word included).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from auditor.demo.run import Demo
from auditor.demo.simulate import Coupling, latent_quantiles

TYPES = ("PER", "ORG", "LOC", "MISC")
SIZE = 1500
MIN_SIZE = 50
UNIT = "sentences"

#: Sentence templates: tokens, ``{TYPE}`` an entity slot.
TEMPLATES = (
    "{PER} visited {LOC} last week .", "{PER} joined {ORG} in 1998 .",
    "Officials at {ORG} said the plan would cost more than expected .",
    "The {MISC} festival drew large crowds to {LOC} .", "{PER} and {PER} shared the {MISC} this year .",
    "Shares of {ORG} fell after {PER} resigned .", "It rained in {LOC} for the third day .",
    "Nobody expected the vote to pass so quickly .", "{PER} told reporters in {LOC} that {ORG} would appeal .",
    "The report was published by {ORG} on Monday .", "Flights from {LOC} to {LOC} were delayed again .",
    "{PER} , who leads {ORG} , spoke about {MISC} music .", "Prices rose slowly during the summer .",
    "A spokesman for {ORG} declined to comment .", "{PER} grew up near {LOC} and studied at {ORG} .",
)
SYLLABLES = ("ka", "ri", "lo", "men", "tas", "vin", "do", "ra", "sel", "mo", "bar", "li", "nu", "der", "sa", "tor")
ORG_WORDS = ("Bank", "Institute", "Group", "Council", "Airlines", "Press")
LOC_WORDS = ("Port", "North", "Lake", "Valley")
MISC_WORDS = ("Cup", "Prize", "Awards")

#: Tagger -> entity type -> outcome shares (right, wrong type, wrong boundary, missed); false alarms per sentence.
OUTCOMES = {
    "crf": {"PER": (0.94, 0.02, 0.02, 0.02), "ORG": (0.88, 0.04, 0.05, 0.03), "LOC": (0.90, 0.04, 0.03, 0.03),
            "MISC": (0.75, 0.08, 0.07, 0.10)},
    "bilstm-spans": {"PER": (0.72, 0.02, 0.23, 0.03), "ORG": (0.55, 0.03, 0.38, 0.04),
                     "LOC": (0.75, 0.03, 0.18, 0.04), "MISC": (0.55, 0.05, 0.30, 0.10)},
    "type-confused": {"PER": (0.85, 0.10, 0.02, 0.03), "ORG": (0.55, 0.38, 0.03, 0.04),
                      "LOC": (0.60, 0.33, 0.03, 0.04), "MISC": (0.40, 0.45, 0.05, 0.10)},
    "cautious": {"PER": (0.80, 0.01, 0.01, 0.18), "ORG": (0.55, 0.01, 0.02, 0.42), "LOC": (0.60, 0.01, 0.01, 0.38),
                 "MISC": (0.20, 0.01, 0.01, 0.78)},
}
OUTCOMES["crf-iob1"] = OUTCOMES["crf"]
FALSE_ALARMS = {"crf": 0.04, "bilstm-spans": 0.08, "type-confused": 0.05, "cautious": 0.0, "crf-iob1": 0.04}
#: The type a tagger mistakes each type for.
CONFUSED = {"PER": "ORG", "ORG": "LOC", "LOC": "ORG", "MISC": "ORG"}
COUPLINGS = {"crf": Coupling(0.6, 0.3, "crf"), "bilstm-spans": Coupling(0.6), "type-confused": Coupling(0.6),
             "cautious": Coupling(0.6), "crf-iob1": Coupling(0.6, 0.3, "crf")}


@dataclass
class Sentence:
    tokens: list[str]
    spans: list[tuple[int, int, str]]  # [start, end) and type


def make_name(rng: np.random.Generator) -> str:
    return "".join(rng.choice(SYLLABLES, size=int(rng.integers(2, 4)))).capitalize()


def make_entity(rng: np.random.Generator, kind: str) -> list[str]:
    """The tokens of one made-up entity of type ``kind``."""
    name = make_name(rng)
    if kind == "PER":
        return [name, make_name(rng)] if rng.random() < 0.7 else [name]
    if kind == "ORG":
        return ["University", "of", name] if rng.random() < 0.25 else [name, str(rng.choice(ORG_WORDS))]
    if kind == "LOC":
        return [str(rng.choice(LOC_WORDS)), name] if rng.random() < 0.4 else [name]
    return [name, str(rng.choice(MISC_WORDS))] if rng.random() < 0.5 else [name + "ian"]


def make_sentences(rng: np.random.Generator, size: int) -> list[Sentence]:
    sentences = []
    for template in rng.choice(TEMPLATES, size=size):
        tokens: list[str] = []
        spans = []
        for word in str(template).split():
            if word.startswith("{"):
                entity = make_entity(rng, word[1:-1])
                spans.append((len(tokens), len(tokens) + len(entity), word[1:-1]))
                tokens += entity
            else:
                tokens.append(word)
        sentences.append(Sentence(tokens, spans))
    return sentences


def tagged_spans(rng: np.random.Generator, sentence: Sentence, quantiles: np.ndarray,
                 outcomes: dict[str, tuple[float, ...]], false_alarm: float) -> list[tuple[int, int, str]]:
    """One tagger's spans of one sentence: each gold entity right, retyped, re-bounded or missed at its
    quantile, plus a false alarm on a non-entity word with probability ``false_alarm``."""
    spans = []
    inside = {i for start, end, _ in sentence.spans for i in range(start, end)}
    for (start, end, kind), u in zip(sentence.spans, quantiles):
        outcome = int(np.searchsorted(np.cumsum(outcomes[kind]), u * sum(outcomes[kind]), side="right"))
        if outcome == 0:
            spans.append((start, end, kind))
        elif outcome == 1:
            spans.append((start, end, CONFUSED[kind]))
        elif outcome == 2:
            if end - start > 1 and rng.random() < 0.7:  # cut short: the last (or first) token left out
                spans.append((start, end - 1, kind) if rng.random() < 0.7 else (start + 1, end, kind))
            elif end < len(sentence.tokens) - 1 and end not in inside:  # the next word swallowed
                spans.append((start, end + 1, kind))
            elif start > 0 and start - 1 not in inside:
                spans.append((start - 1, end, kind))
    if rng.random() < false_alarm:
        taken = inside | {i for start, end, _ in spans for i in range(start, end)}
        free = [i for i in range(len(sentence.tokens) - 1) if i not in taken]
        if free:
            word = int(rng.choice(free))
            spans.append((word, word + 1, str(rng.choice(TYPES[:3]))))
    return sorted(spans)


def capitalised_spans(sentence: Sentence) -> list[tuple[int, int, str]]:
    """Every run of capitalised words, as a person (a sentence's capitalised first word too)."""
    spans, start = [], None
    for i, token in enumerate(sentence.tokens + ["."]):
        capital = token[:1].isupper()
        if capital and start is None:
            start = i
        elif not capital and start is not None:
            spans.append((start, i, "PER"))
            start = None
    return spans


def tags(length: int, spans: list[tuple[int, int, str]], iob1: bool = False) -> list[str]:
    """IOB2 tags of ``spans`` (``iob1``: a chunk starts with ``I-`` unless it follows a chunk of its type)."""
    out = ["O"] * length
    previous_end, previous_kind = -1, ""
    for start, end, kind in spans:
        begin = "I" if iob1 and not (previous_end == start and previous_kind == kind) else "B"
        out[start] = f"{begin}-{kind}"
        for i in range(start + 1, end):
            out[i] = f"I-{kind}"
        previous_end, previous_kind = end, kind
    return out


def tag_file(sentences: list[Sentence], tagged: list[list[str]]) -> str:
    """``token<TAB>tag`` lines, a blank line after each sentence."""
    return "".join("".join(f"{t}\t{g}\n" for t, g in zip(s.tokens, sentence_tags)) + "\n"
                   for s, sentence_tags in zip(sentences, tagged))


def generate(seed: int, size: int = SIZE) -> Demo:
    """The tagging demo: ``gold.iob2`` and ``systems/NAME.iob2`` (``token<TAB>tag``, IOB2)."""
    rng = np.random.default_rng(seed)
    sentences = make_sentences(rng, size)
    entities = sum(len(s.spans) for s in sentences)
    quantiles = latent_quantiles(rng, entities, COUPLINGS)
    first = np.cumsum([0] + [len(s.spans) for s in sentences])
    files = {"gold.iob2": tag_file(sentences, [tags(len(s.tokens), s.spans) for s in sentences])}
    for system in COUPLINGS:
        spans = [tagged_spans(rng, s, quantiles[system][first[i]:first[i + 1]], OUTCOMES[system],
                              FALSE_ALARMS[system]) for i, s in enumerate(sentences)]
        files[f"systems/{system}.iob2"] = tag_file(sentences, [tags(len(s.tokens), found, system == "crf-iob1")
                                                               for s, found in zip(sentences, spans)])
    files["systems/capitalised.iob2"] = tag_file(sentences, [tags(len(s.tokens), capitalised_spans(s))
                                                             for s in sentences])
    names = sorted((path.split("/")[1].removesuffix(".iob2") for path in files if "/" in path),
                   key=lambda name: f"{name}.iob2")
    about = (f"Simulated, not a real evaluation: {size:,} news-like sentences built from templates with "
             f"{entities:,} named entities (PER, ORG, LOC and the rarer MISC) whose names auditor's demo "
             "(auditor/demo/tagging.py) makes up from syllables, tagged in IOB2 by six simulated taggers. Each "
             "tagger decides per entity whether it is right, mistyped, mis-bounded or missed, from its own shares "
             "per type, with one latent difficulty per entity shared by the taggers: crf (strong), bilstm-spans "
             "(boundary errors), type-confused (ORG/LOC mix-ups), cautious (misses many entities, most MISC), "
             "crf-iob1 (crf's twin writing chunk starts as I-, ill-formed in IOB2) and capitalised (every run of "
             f"capitalised words a person). Simulation seed {seed}.")
    return Demo("tagging", files, "gold.iob2", {name: f"systems/{name}.iob2" for name in names}, about,
                pattern="systems/*.iob2")
