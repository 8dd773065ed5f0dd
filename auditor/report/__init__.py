"""Stage "build": the report model (``build``) and its charts (``charts``), built from the audit."""
