"""Stage 1: reading label files and arrays (``load``), aligning gold and systems by id or line
(``validate``), and the counts every later stage works from (``counts``); confusion-matrix
files (``confusion``), score files (``scores``) and slices files (``slices``)."""
