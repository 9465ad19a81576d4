"""The standard error of a Monte Carlo estimate, one definition for every equity.

A mean of values in [0, 1] (a chance, a share of a pot) from a few samples is often
exactly 0 or 1 when the true value is small but not zero: every one of 128 Rummoli deals
can miss a 0.2 % chance.  The sample's own error is then 0, which reads as certainty
("0 ± 0").  Such an estimate gets Agresti and Coull's error instead: that of a proportion
with two successes and two failures added, never 0, whose 95 % interval covers a small
true value about as often as it says.
"""

from __future__ import annotations

import math

__all__ = ["mean_std_error"]


def mean_std_error(mean: float, variance: float, count: int) -> float:
    """The standard error of the mean ``mean`` of ``count`` samples in [0, 1] with
    population variance ``variance``: ``sqrt(variance / (count - 1))``, or, when every
    sample was alike (variance 0), Agresti-Coull's ``sqrt(p (1 - p) / (count + 4))`` with
    ``p = (count * mean + 2) / (count + 4)``.  The numba kernels compile this function."""
    if variance > 0.0:
        return math.sqrt(variance / (count - 1))
    adjusted = (count * mean + 2.0) / (count + 4.0)
    return math.sqrt(adjusted * (1.0 - adjusted) / (count + 4.0))
