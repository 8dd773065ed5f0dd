"""Stage "analyse": the analyses, one module each, entered by ``analyse(...)``, every one a function of the counts, the
metric table, the options and the named results of earlier analyses."""
