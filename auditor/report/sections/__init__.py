"""One section builder per analysis: each reads what its analysis produced and returns a
:class:`~auditor.report.model.Section`, or ``None`` when that analysis did not run."""
