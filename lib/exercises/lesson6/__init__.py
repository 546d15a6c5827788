"""Lesson 6 exercises: where a premium comes from, how unequal counts are, and a training mix.

- `premiums`: `premium_factors`, checked against `lib.fairness` and tiktoken;
- `gini`: how unequal counts are, with a 💡 for each way of miscounting the picks;
- `mix`: the design challenge `training_mix`, and `measure_mix` to try a mix before handing it in.
"""

from __future__ import annotations

from lib.exercises.lesson6.gini import gini
from lib.exercises.lesson6.mix import (
    MIX_BUDGET,
    MIX_LANGUAGES,
    MIX_MARGIN,
    MIX_THRESHOLD,
    WorstPremiumUnder,
    measure_mix,
    training_mix,
)
from lib.exercises.lesson6.premiums import premium_factors

__all__ = [
    "EXERCISES",
    "MIX_BUDGET",
    "MIX_LANGUAGES",
    "MIX_MARGIN",
    "MIX_THRESHOLD",
    "WorstPremiumUnder",
    "gini",
    "measure_mix",
    "premium_factors",
    "training_mix",
]

EXERCISES = [premium_factors, training_mix, gini]  # in the order the notebook asks them
