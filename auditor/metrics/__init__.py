"""Stage "score": the metric record and registry (``registry``, with the one zero-division helper
``ratio``), the catalogue of metrics and their variants (``catalogue``), metrics with a parameter
of the audit (``parameterised``), the literature's Table 5 as data (``literature``) and the
lists of metric ids each output shows (``selections``).

Importing this package registers the catalogue.
"""
from auditor.metrics import catalogue  # noqa: F401  (registers the catalogue)
