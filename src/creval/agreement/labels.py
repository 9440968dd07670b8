"""Verbal interpretation bands, printed beside a value and never instead of it.

These bands are conventions, not laws; the papers themselves call them arbitrary. They are here because readers of
study reports expect them.
"""

from __future__ import annotations

import math

__all__ = ["interpret_kappa", "interpret_icc", "interpret_alpha"]


def interpret_kappa(value: float) -> str:
    """Landis & Koch (1977, "The measurement of observer agreement for categorical data", Biometrics 33:159-174).

    ``< 0`` poor, ``0.00-0.20`` slight, ``0.21-0.40`` fair, ``0.41-0.60`` moderate, ``0.61-0.80`` substantial,
    ``0.81-1.00`` almost perfect. Band edges belong to the lower band (0.20 is slight, 0.40 fair, ...), as in the
    paper's table. NaN gives ``"undefined"``.
    """
    if value is None or math.isnan(value):
        return "undefined"
    if value < 0:
        return "poor"
    if value <= 0.20:
        return "slight"
    if value <= 0.40:
        return "fair"
    if value <= 0.60:
        return "moderate"
    if value <= 0.80:
        return "substantial"
    return "almost perfect"


def interpret_icc(value: float) -> str:
    """Koo & Li (2016, J. Chiropractic Medicine 15:155-163): ``< 0.5`` poor, ``0.5-0.75`` moderate,
    ``0.75-0.9`` good, ``> 0.9`` excellent."""
    if value is None or math.isnan(value):
        return "undefined"
    if value < 0.5:
        return "poor"
    if value < 0.75:
        return "moderate"
    if value <= 0.9:
        return "good"
    return "excellent"


def interpret_alpha(value: float) -> str:
    """Krippendorff (2004, Content Analysis, 2nd ed., ch. 11.4): rely on data with ``alpha >= 0.800``; draw only
    tentative conclusions for ``0.667 <= alpha < 0.800``; discard below 0.667."""
    if value is None or math.isnan(value):
        return "undefined"
    if value >= 0.8:
        return "reliable"
    if value >= 0.667:
        return "tentative"
    return "unreliable"
