"""The planner (``auditor plan``): power of the audit's own tests before a test set exists, and the
predictive-power model of Vickers et al. (2023). Stage 8: reads io, metrics, analyses and report.

From Python: :func:`plan_accuracy` (mode 1), :func:`plan_pilot` (mode 2, files) or
:func:`~auditor.plan.pilot.plan_pilot_counts` (counts), :func:`predictive_power` (mode 3); each
result has ``to_json()`` (schema ``auditor-plan/1``).
"""
from auditor.plan.documents import PredictivePlan, plan_accuracy
from auditor.plan.pilot import plan_pilot, plan_pilot_counts
from auditor.plan.predictive import model


def predictive_power(prevalence, **options):  # type: ignore[no-untyped-def]
    """Mode 3: :func:`auditor.plan.predictive.model` wrapped as a plan (``to_json``, pages)."""
    return PredictivePlan(model(prevalence, **options), "argument")


__all__ = ["plan_accuracy", "plan_pilot", "plan_pilot_counts", "predictive_power"]
