"""The translation demo: a reference text written by a small grammar, six simulated systems' outputs of it with
different error behaviours, and simulated human segment scores.

The grammar builds English sentences from noun phrases, verbs and prepositional phrases over a small vocabulary
in which about one content word in eight is rare, and made-up place names most of which occur once or twice.
Each system copies the reference and then errs in its own way, more on a segment that is hard for every system
(one latent difficulty per segment, shared; :mod:`auditor.demo.simulate`):

- ``strong``: a few synonyms;
- ``paraphraser``: many synonyms, same meaning (n-gram metrics under-rate it, the human scores do not);
- ``rare-dropper``: turns rare words into generic ones (few tokens, so BLEU barely notices; the type-level
  MacroF and the human scores do);
- ``truncated``: stops early on long segments (brevity penalty, omissions);
- ``scrambled``: the right words in a shuffled order after the subject (unigram F stays high, BLEU falls);
- ``hallucinator``: adds phrases the source never had.

A human score per segment is 100 minus a penalty per error (an omission or a rare word lost weighs most, a
synonym least) minus noise, like a direct-assessment score in [0, 100], higher better.
"""
from __future__ import annotations

import numpy as np

from auditor.demo.run import Demo
from auditor.demo.simulate import Coupling, latent_quantiles

SIZE = 500
MIN_SIZE = 20
UNIT = "segments"

DETERMINERS = ("the", "a")
ADJECTIVES = ("new", "old", "small", "large", "local", "young", "quiet", "busy")
RARE_ADJECTIVES = ("turquoise", "ancient", "reluctant", "meticulous", "fragile", "nocturnal", "gilded", "frugal",
                   "solemn", "brittle", "verdant", "wary", "lavish", "stoic", "opulent", "rustic")
NOUNS = ("farmer", "teacher", "city", "river", "school", "market", "council", "child", "family", "road", "doctor",
         "village")
RARE_NOUNS = ("cartographer", "lighthouse", "archipelago", "violinist", "glacier", "apothecary", "observatory",
              "vineyard", "blacksmith", "monastery", "aqueduct", "falconer", "granary", "locksmith", "orchard",
              "cathedral", "shipwright", "tannery", "watchtower", "beekeeper", "chandler", "quarry", "ferryman",
              "almanac", "lantern", "harpsichord", "tapestry", "weathervane", "sextant", "kiln")
VERBS = ("visited", "built", "found", "saw", "opened", "closed", "left", "helped", "painted", "watched")
RARE_VERBS = ("renovated", "abandoned", "surveyed", "commemorated", "salvaged", "bequeathed", "dismantled",
              "embroidered", "fortified", "appraised", "smuggled", "catalogued")
#: Place names: made up from syllables, most of them seen once or twice in the text.
SYLLABLES = ("ka", "ri", "lo", "men", "tas", "vin", "do", "ra", "sel", "mo", "bar", "li", "nu", "der", "sa", "tor")
PLACE_SHARE = 0.35
PHRASES = ("in the morning", "near the river", "after the storm", "with great care", "for three years",
           "during the festival", "before the winter")
SYNONYMS = {"visited": "toured", "built": "constructed", "found": "discovered", "saw": "noticed",
            "opened": "launched", "helped": "assisted", "left": "departed", "watched": "observed",
            "small": "little", "large": "big", "old": "aged", "busy": "crowded", "quiet": "calm", "young": "youthful",
            "city": "town", "road": "street", "child": "kid", "farmer": "grower", "teacher": "tutor",
            "market": "bazaar", "doctor": "physician", "village": "hamlet", "new": "modern", "local": "regional",
            "cartographer": "mapmaker", "lighthouse": "beacon", "glacier": "icefield", "violinist": "fiddler"}
GENERIC = {"noun": "thing", "adjective": "nice", "verb": "did", "name": "town"}
RARE_SHARE = 0.12
INSERTIONS = ("as everyone had hoped", "without any warning", "in the old days", "to the surprise of many")

#: How each system's errors are shared (segment difficulty).
COUPLINGS = {name: Coupling(0.6) for name in ("strong", "paraphraser", "rare-dropper", "truncated", "scrambled",
                                              "hallucinator")}
#: Human penalty per error (points of 100).
PENALTIES = {"synonym": 1.5, "rare": 12.0, "omitted": 7.0, "scrambled": 25.0, "inserted": 15.0}


def zipf_choice(rng: np.random.Generator, words: tuple[str, ...]) -> str:
    """One of ``words``, the r-th (from 1) with probability proportional to 1/r, as word counts fall in text."""
    weights = 1.0 / np.arange(1, len(words) + 1)
    return str(words[rng.choice(len(words), p=weights / weights.sum())])


def word(rng: np.random.Generator, common: tuple[str, ...], rare: tuple[str, ...], kind: str) -> tuple[str, str]:
    """A (word, kind) pair: kind is ``rare-noun`` etc. for a rare word."""
    if rng.random() < RARE_SHARE:
        return zipf_choice(rng, rare), f"rare-{kind}"
    return zipf_choice(rng, common), kind


def noun_phrase(rng: np.random.Generator) -> list[tuple[str, str]]:
    phrase = [(str(rng.choice(DETERMINERS)), "function")]
    if rng.random() < 0.6:
        phrase.append(word(rng, ADJECTIVES, RARE_ADJECTIVES, "adjective"))
    return phrase + [word(rng, NOUNS, RARE_NOUNS, "noun")]


def clause(rng: np.random.Generator) -> list[tuple[str, str]]:
    words = noun_phrase(rng) + [word(rng, VERBS, RARE_VERBS, "verb")] + noun_phrase(rng)
    if rng.random() < 0.5:
        words += [(w, "function") for w in str(rng.choice(PHRASES)).split()]
    if rng.random() < PLACE_SHARE:
        name = "".join(rng.choice(SYLLABLES, size=int(rng.integers(2, 4)))).capitalize()
        words += [(str(rng.choice(("in", "near"))), "function"), (name, "rare-name")]
    return words


def sentence(rng: np.random.Generator) -> list[tuple[str, str]]:
    """A reference sentence as (word, kind) pairs: one or two clauses."""
    words = clause(rng)
    if rng.random() < 0.4:
        words += [(",", "function"), ("and", "function")] + clause(rng)
    return words


def text(words: list[str]) -> str:
    """Words joined as a sentence: a capital first letter, no space before a comma, a final full stop."""
    joined = " ".join(words).replace(" ,", ",")
    return joined[:1].upper() + joined[1:] + "."


def output(rng: np.random.Generator, system: str, words: list[tuple[str, str]], hardness: float) -> tuple[str, float]:
    """One system's output of one reference sentence and its human penalty."""
    out, penalty = [w for w, _ in words], 0.0
    rate = 0.5 + hardness  # a hard segment (hardness near 1) gets three times the errors of an easy one
    synonym_rate = {"strong": 0.06, "paraphraser": 0.45}.get(system, 0.03)
    for i, (w, kind) in enumerate(words):
        if kind.startswith("rare-") and system == "rare-dropper" and rng.random() < min(1.0, 0.8 * rate):
            out[i] = GENERIC[kind[5:]]
            penalty += PENALTIES["rare"]
        elif w in SYNONYMS and rng.random() < min(1.0, synonym_rate * rate):
            out[i] = SYNONYMS[w]
            penalty += PENALTIES["synonym"]
    if system == "truncated" and len(out) > 10 and rng.random() < min(1.0, 0.6 * rate):
        keep = int(len(out) * rng.uniform(0.5, 0.8))
        penalty += PENALTIES["omitted"] * sum(kind != "function" for _, kind in words[keep:])
        out = out[:keep]
    elif system == "scrambled" and rng.random() < min(1.0, 0.7 * rate):
        head, tail = out[:3], out[3:]
        rng.shuffle(tail)
        out = head + [w for w in tail if w != ","]
        penalty += PENALTIES["scrambled"]
    elif system == "hallucinator" and rng.random() < min(1.0, 0.5 * rate):
        out = out + str(rng.choice(INSERTIONS)).split()
        penalty += PENALTIES["inserted"]
    return text(out), penalty


def generate(seed: int, size: int = SIZE) -> Demo:
    """The translation demo: ``ref.txt``, ``systems/NAME.txt`` (one segment a line) and ``human.tsv``
    (``system<TAB>line<TAB>score``)."""
    rng = np.random.default_rng(seed)
    references = [sentence(rng) for _ in range(size)]
    hardness = latent_quantiles(rng, size, COUPLINGS)
    files = {"ref.txt": "".join(text([w for w, _ in words]) + "\n" for words in references)}
    human = []
    for system in sorted(COUPLINGS, key=lambda name: f"{name}.txt"):
        lines = []
        for line, (words, u) in enumerate(zip(references, hardness[system]), start=1):
            segment, penalty = output(rng, system, words, float(u))
            lines.append(segment + "\n")
            score = float(np.clip(100 - penalty - abs(rng.normal(0, 6)), 0, 100))
            human.append(f"{system}\t{line}\t{score:.1f}\n")
        files[f"systems/{system}.txt"] = "".join(lines)
    files["human.tsv"] = "".join(human)
    names = sorted(COUPLINGS, key=lambda name: f"{name}.txt")
    about = (f"Simulated, not a real evaluation: a reference text of {size:,} English sentences that auditor's demo "
             "(auditor/demo/translation.py) writes with a small grammar (about one content word in eight rare, and "
             "made-up place names), "
             f"the outputs of {len(names)} simulated systems, each the reference with its own kind of error, more "
             "on segments hard for all (one latent difficulty per segment): strong (a few synonyms), paraphraser "
             "(many synonyms), rare-dropper (rare words made generic), truncated (stops early), scrambled (word "
             "order shuffled), hallucinator (adds phrases); and a simulated human score per segment (100 minus "
             "a penalty per error, most for a lost rare word or a shuffled order, least for a synonym, minus "
             f"noise). Simulation seed {seed}.")
    return Demo("translation", files, "ref.txt", {name: f"systems/{name}.txt" for name in names}, about,
                inputs={"human": "human.tsv"}, pattern="systems/*.txt")
