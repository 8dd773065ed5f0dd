"""Public evaluation datasets laid out for ``auditor report``: one module per dataset (``auditor example``).

Each module reads the dataset's files as its public repository holds them and writes gold and system files
(systems built by the project's own code where the source has gold labels only).
"""
