"""Checking numbers a paper reports against the evidence (``check``)."""
