"""``auditor plan``: choose the mode from the options given, run it, write its outputs.

* ``--predictive-power`` → mode 3 (:mod:`auditor.plan.predictive`);
* GOLD and SYSTEMS → mode 2, the pilot (:mod:`auditor.plan.pilot`);
* otherwise → mode 1, hypotheses about accuracy (:mod:`auditor.analyses.power`).

Options of another mode are refused (one message naming them), never silently ignored.
"""
from __future__ import annotations

from typing import Any, Iterable, Mapping

from auditor.errors import UsageError

#: Options that belong to one mode only (the command line's spelling), by mode.
MODE_OPTIONS = {
    "accuracy": ("accuracy", "difference", "agreement"),
    "predictive_power": ("prevalence", "prevalence_from", "guess", "simulate", "draws"),
    "pilot": ("rounds", "correction", "labels", "simulations", "sizes"),
}
#: The plan's files by format (written by :func:`auditor.formats.render.render`, as the audit's are).
FILE_NAMES = {"html": "plan.html", "pdf": "plan.pdf", "json": "plan.json"}


def _refuse_others(mode: str, given: Mapping[str, Any]) -> None:
    others = [name for other, names in MODE_OPTIONS.items() if other != mode for name in names
              if given.get(name) not in (None, False, ())]
    if others:
        spelled = ", ".join("--" + name.replace("_", "-") for name in others)
        raise UsageError(f"{spelled}: not an option of this planning mode ({mode.replace('_', ' ')}); "
                         f"see 'auditor plan --help'")


def plan(gold: str | None = None, systems: Iterable[str] = (), **options: Any) -> Any:
    """Run the mode the options ask for; returns its result (``to_json``, ``terminal_lines``,
    ``report_model``)."""
    systems = tuple(systems)
    seed = options.get("seed", 12345)
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64:
        raise UsageError(f"--seed: expected an integer from 0 to 2**64-1, found {seed!r}")
    if options.get("predictive_power"):
        if gold is not None:
            raise UsageError("--predictive-power needs no GOLD or SYSTEMS; give the class shares with --prevalence "
                             "or --prevalence-from GOLD")
        _refuse_others("predictive_power", options)
        return _predictive(options)
    if gold is not None:
        _refuse_others("pilot", options)
        from auditor.plan.pilot import plan_pilot

        if options.get("items") is None:
            raise UsageError("--items: the planned test set size N is needed to plan from a pilot")
        return plan_pilot(gold, systems, items=options["items"], alpha=options.get("alpha", 0.05),
                          target_power=options.get("target_power", 0.8), rounds=options.get("rounds") or 1000,
                          correction=options.get("correction") or "holm", labels=options.get("labels"),
                          simulations=options.get("simulations") or 200, sizes=_sizes(options.get("sizes")),
                          seed=options.get("seed", 12345))
    _refuse_others("accuracy", options)
    missing = [name for name in ("items", "accuracy", "difference") if options.get(name) is None]
    if missing:
        raise UsageError(f"missing {', '.join('--' + name for name in missing)}: planning an accuracy comparison "
                         "needs --items N --accuracy A --difference D (or GOLD SYSTEM... --items N to plan from a "
                         "pilot, or --predictive-power)")
    from auditor.plan.documents import plan_accuracy

    return plan_accuracy(options["items"], options["accuracy"], options["difference"], options.get("agreement"),
                         alpha=options.get("alpha", 0.05), target_power=options.get("target_power", 0.8))


def _sizes(text: str | None) -> tuple[int, ...]:
    """``--sizes 500,1000,2000`` -> (500, 1000, 2000)."""
    if not text:
        return ()
    try:
        return tuple(int(part) for part in text.split(",") if part.strip())
    except ValueError:
        raise UsageError(f"--sizes: expected whole numbers separated by commas (e.g. 500,1000,2000), found {text!r}") \
            from None


def _predictive(options: Mapping[str, Any]) -> Any:
    from auditor.options import parse_prevalence
    from auditor.plan.documents import PredictivePlan
    from auditor.plan.predictive import model, prevalence_from_gold

    given, path = options.get("prevalence"), options.get("prevalence_from")
    if (given is None) == (path is None):
        raise UsageError("--predictive-power needs exactly one of --prevalence a=0.7,b=0.3 and --prevalence-from GOLD")
    if path is not None:
        prevalence, source = prevalence_from_gold(path), f"--prevalence-from {path}"
    else:
        prevalence, source = parse_prevalence(given, "--prevalence"), "--prevalence"
    result = model(prevalence, guess=options.get("guess") or "prevalence", items=options.get("simulate"),
                   draws=options.get("draws") or 1000, seed=options.get("seed", 12345))
    return PredictivePlan(result, source)
