"""The planner (``auditor plan``): power of the audit's own tests before a test set exists, and the
predictive-power model of Vickers et al. (2023). Stage 8: reads metrics, analyses and report."""
