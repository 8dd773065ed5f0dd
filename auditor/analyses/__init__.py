"""Stage 3: the analyses, one module each, every one a function of the counts, the metric
table, the options and the named results of earlier analyses."""
