"""Stage "render": one renderer per output format (``html``, ``pdf``, ``latex``,
``markdown``, ``json``), the jinja environment they share (``templating``), the safe-character
helpers (``text``), ``render`` (chosen formats -> files) and the atomic writing of the set of
output files (``output``)."""
