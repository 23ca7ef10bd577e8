"""The did-you-mean of every one-line refusal of a misspelt name (a flag, a config
key, a lesson's key): the closest known name, when one is close."""
from __future__ import annotations

import difflib
from collections.abc import Iterable


def did_you_mean(word: str, options: Iterable[str]) -> str:
    """' (did you mean 'stop'?)' when word is close to one of options, else ''."""
    # one letter wrong in a short key ('iz' for 'is') scores only 0.5
    close = difflib.get_close_matches(word, list(options), n=1,
                                      cutoff=0.5 if len(word) <= 3 else 0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""
