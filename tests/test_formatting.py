"""How p-values and small numbers are printed (issue 36): near a level the digits show the side."""
from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from auditor.formatting import ALPHAS, format_p, format_small, format_value


def test_p_near_alpha_shows_its_side():
    """0.049955 rounds to 0.050 at three decimals, beside "p < 0.05": five decimals (0.04996) show it is below."""
    assert format_p(0.049955) == "0.04995"  # the double nearest 0.049955 lies just below it
    assert format_p(0.0500049) == "0.050005"
    assert format_p(0.05) == "0.050"
    assert format_p(0.0123) == "0.012"
    assert format_p(0.0099996) == "0.0099996"
    assert format_value(0.049955, "p") == "0.04995"
    assert format_value(0.0004, "p") == "<0.001"


@given(st.floats(0.001, 1.0))
def test_printed_p_is_on_the_same_side_of_every_level(p):
    shown = float(format_p(p))
    for alpha in ALPHAS:
        if abs(p - alpha) > 1e-10:
            assert (shown < alpha) == (p < alpha)


def test_small_numbers_in_prose_have_no_exponent():
    assert format_small(1 / 10101) == "0.000099"
    assert format_small(0.025) == "0.025"
    assert "e" not in format_small(3e-7)
