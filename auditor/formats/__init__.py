"""Stage 5: one renderer per output format (``render``) and the atomic writing of the set of
output files (``output``)."""
