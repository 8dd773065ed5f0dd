"""Stage 4: the report model (``build``) and its charts (``charts``), built from the audit."""
