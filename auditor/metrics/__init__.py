"""Stage 2: the metric record and registry (``registry``, with the one zero-division helper
``ratio``) and the catalogue of metrics and their variants (``catalogue``).

Importing this package registers the catalogue.
"""
from auditor.metrics import catalogue  # noqa: F401  (registers the catalogue)
