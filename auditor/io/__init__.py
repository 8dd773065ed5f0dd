"""The read, align and count stages: reading label files and arrays (``load``, one dispatch over
one module per format: ``delimited``, ``jsonl``, ``parquet``, ``arrays``; the column-name rules in
``names``, the label encoding in ``column``), aligning gold and systems by id or line
(``validate``), and the counts every later stage works from (``counts``); confusion-matrix files
(``confusion``), score files (``scores``), slices files (``slices``), per-class tables
(``class_table``) and SemEval metadata (``semeval``)."""
