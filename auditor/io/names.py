"""Column-name rules: which header fields, JSON keys or Parquet columns hold the ids and the labels.

Read stage. Every reader (delimited text, JSON Lines, Parquet, score files, slices) decides by
name only, through :func:`header_kind` (is the first line a header?) and :func:`choose_columns`
(which column is the id, which the value), under a :class:`HeaderRule` passed as a parameter:
gold labels, predictions (a prediction dump often keeps a gold copy beside the prediction:
``id,label,prediction``; predictions are read from the prediction column, never the gold copy)
or slice groups.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from auditor.errors import InputError

__all__ = [
    "EXPECTED", "ID_NAMES", "LABEL_NAMES", "PREDICTION_NAMES", "ONE_COLUMN_HEADERS", "GROUP_NAMES", "HeaderRule",
    "GOLD", "PREDICTIONS", "GROUPS", "is_id_name", "is_label_name", "is_prediction_name", "header_kind",
    "choose_columns",
]

#: The label-file formats, as messages name them.
EXPECTED = "CSV, TSV, whitespace-separated `id label`, JSON Lines or Parquet"

# Column names recognised in a header row, a JSON object or a Parquet schema.
ID_NAMES = ("id", "ids", "item", "item_id", "itemid", "idx", "index", "uid", "key",
            "example_id", "instance_id", "doc_id", "sentence_id", "tweet_id", "qid", "guid")
LABEL_NAMES = ("label", "labels", "gold", "gold_label", "prediction", "predictions",
               "predicted", "pred", "preds", "y", "y_true", "y_pred", "yhat", "y_hat",
               "class", "target", "truth", "output", "category", "tag", "answer", "level")
#: Label names that say "a system's output": in a system file they win over a gold copy.
PREDICTION_NAMES = ("prediction", "predictions", "predicted", "pred", "preds", "y_pred", "yhat", "y_hat", "output")
#: The only names that make the first line of a one-column file a header.
ONE_COLUMN_HEADERS = ("label", "labels", "gold", "gold_label", "prediction", "predictions",
                      "predicted", "pred", "preds", "y_true", "y_pred", "level")
#: Column names of the group in a slices file (``--slices``): these, and only these, take the
#: label column's place (a ``label`` column beside them is ignored).
GROUP_NAMES = ("group", "slice", "groups", "slices")
_ID_PATTERN = re.compile(r"^([a-z0-9]+[_ -])?id$")
_LABEL_PATTERN = re.compile(
    r"^(correct|gold|true|pred|predicted|system)?[_ -]?(label|class|prediction|target)"
    r"([_ -]?[a-z0-9]+)?$"
)
_PREDICTION_PATTERN = re.compile(r"^(pred|predicted|system)[_ -]?(label|class|prediction|target)([_ -]?[a-z0-9]+)?$"
                                 r"|^prediction[_ -]?[a-z0-9]+$")


@dataclass(frozen=True)
class HeaderRule:
    """Which column a reader takes as the value column.

    ``values``: None = :data:`LABEL_NAMES` and the label patterns; else exactly these names
    (a slices file's :data:`GROUP_NAMES`). ``role``: ``"prediction"`` for a system's file
    (of several label columns, the one named as a prediction wins: :data:`PREDICTION_NAMES`).
    """

    values: tuple[str, ...] | None = None
    role: Literal["gold", "prediction"] = "gold"

    @property
    def one_column(self) -> tuple[str, ...]:
        return self.values or ONE_COLUMN_HEADERS


GOLD = HeaderRule()
PREDICTIONS = HeaderRule(role="prediction")
GROUPS = HeaderRule(values=GROUP_NAMES)


def normal(name: str) -> str:
    """A column name as compared: trimmed, ``#`` and quotes dropped, lower case."""
    return name.strip().lstrip("#").strip().strip('"').strip().lower()


def is_id_name(name: str) -> bool:
    """True for an id column's name (:data:`ID_NAMES`, ``*_id``)."""
    name = normal(name)
    return name in ID_NAMES or bool(_ID_PATTERN.match(name))


def is_label_name(name: str, rule: HeaderRule = GOLD) -> bool:
    """True for a label column's name (:data:`LABEL_NAMES`; a group column's under :data:`GROUPS`)."""
    name = normal(name)
    if rule.values is not None:
        return name in rule.values
    return name in LABEL_NAMES or bool(_LABEL_PATTERN.match(name))


def is_prediction_name(name: str) -> bool:
    """True for a label column named as a system's output (``prediction``, ``pred``, ``y_pred``, ``pred_label``)."""
    name = normal(name)
    return name in PREDICTION_NAMES or bool(_PREDICTION_PATTERN.match(name))


def _id_columns(names: list[str]) -> list[int]:
    """Columns named as ids; an unnamed first column is an index (pandas' ``to_csv`` writes ``,label``)."""
    return [i for i, n in enumerate(names) if is_id_name(n) or (i == 0 and len(names) > 1 and not normal(n))]


def header_kind(fields: list[str], rule: HeaderRule = GOLD) -> str:
    """``"header"``, ``"data"`` or ``"unclear"`` for the first line's fields.

    Known names only, never "looks different from the other rows": one field must be one
    of the rule's one-column headers; two fields must both be known names (an unnamed first
    field is an index); three or more need an id name and a label name (or all known). A
    line that starts with an id name or holds a one-column header name but fails those tests
    is ``"unclear"`` (refused).
    """
    normals = [normal(f) for f in fields]
    if len(fields) == 1:
        return "header" if normals[0] in rule.one_column else "data"
    id_columns = set(_id_columns(fields))
    ids = [i in id_columns for i in range(len(fields))]
    labels = [is_label_name(f, rule) and not i for f, i in zip(fields, ids)]
    if all(i or lab for i, lab in zip(ids, labels)):
        return "header"
    if len(fields) >= 3 and any(ids) and any(labels):
        return "header"
    if normals[0] in ID_NAMES or any(n in rule.one_column for n in normals):
        return "unclear"
    return "data"


def _pick_label(names: list[str], candidates: list[int], source: str, kind: str, shown: str,
                rule: HeaderRule) -> int:
    """The one label column of several candidates (in a system's file, the one named as a
    prediction, never a possible gold copy; else one exact name, ``label`` first), or an error naming them."""
    normals = [normal(n) for n in names]
    if rule.role == "prediction":
        predictions = [i for i in candidates if is_prediction_name(names[i])]
        if len(predictions) == 1:
            return predictions[0]
        if len(predictions) > 1 or not predictions:  # none named as a prediction: `label` may be a gold copy
            raise InputError(
                f"{source}: more than one {kind[:-1]} could be the prediction "
                f"({', '.join(repr(names[i].strip()) for i in predictions or candidates)}); found {kind} {shown}; "
                f"expected one prediction column (prediction, pred, y_pred...) beside any gold copy")
    exact = [i for i in candidates if normals[i] in LABEL_NAMES]
    first = [i for i in exact if normals[i] == min((normals[j] for j in exact), key=LABEL_NAMES.index)]
    if len(exact) == 1 or (exact and normals[first[0]] == "label"):
        return first[0]
    raise InputError(
        f"{source}: {len(names)} {kind} and more than one could be the label "
        f"({', '.join(repr(names[i].strip()) for i in candidates)}); found {kind} "
        f"{shown}; expected one id column and one label column (e.g. `id`, `label`)")


def choose_columns(names: list[str], source: str, kind: str, column: str | None,
                   rule: HeaderRule = GOLD) -> tuple[int | None, int]:
    """(id column or None, value column), chosen by name only (``kind``: "columns" or "keys")."""
    shown = ", ".join(repr(n.strip()) for n in names)
    normals = [normal(n) for n in names]
    id_columns = _id_columns(names)
    if column is not None:
        if normal(column) not in normals:
            raise InputError(f"{source}: no column named {column!r}; found {kind} {shown}")
        label = normals.index(normal(column))
        ids = [i for i in id_columns if i != label]
        return (ids[0] if ids else None), label
    label_columns = [i for i, n in enumerate(names) if is_label_name(n, rule) and i not in id_columns]
    if not label_columns:
        if rule.values is not None:
            raise InputError(
                f"{source}: no group {kind[:-1]}; found {kind} {shown}; expected one named "
                f"{' or '.join(rule.values)} (and optionally an id column: id, item_id, ..._id)")
        raise InputError(
            f"{source}: no label {kind[:-1]}; found {kind} {shown}; expected one named label, "
            f"gold, prediction, pred, y, class, target... (and optionally an id column: id, "
            f"item_id, ..._id)")
    label = label_columns[0] if len(label_columns) == 1 else _pick_label(names, label_columns, source, kind, shown,
                                                                          rule)
    if len(id_columns) > 1:
        exact = [i for i in id_columns if normals[i] == "id"]
        if len(exact) != 1:
            raise InputError(
                f"{source}: more than one could be the id "
                f"({', '.join(repr(names[i].strip()) for i in id_columns)}); found {kind} "
                f"{shown}; expected one id column (e.g. `id`)")
        id_columns = exact
    return (id_columns[0] if id_columns else None), label
