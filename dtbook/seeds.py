"""One rule for every random draw of the book: a stream keyed by (seed, name).

Each experiment names its stream (``"ch01/osss"``: the page, then the experiment); its generator is seeded by
``SeedSequence([seed, key_number(name)])``, where the key number is a stable hash of the name. Adding,
removing or reordering experiments therefore never shifts another experiment's stream, and the
chapter's ``seed`` parameter moves every stream at once. Sweeps spawn their per-task streams from
the same root (:func:`dtbook.sweep.sweep` with ``key=``).
"""

from __future__ import annotations

import hashlib

import numpy as np

from dtcore.validate import check_int


def key_number(name: str) -> int:
    """A stable 64-bit number for an experiment name (the first 8 bytes of its SHA-256)."""
    if not isinstance(name, str) or not name:
        raise ValueError(f"name must be a non-empty string, got {name!r}")
    return int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "little")


def seed_sequence(seed: int, name: str) -> np.random.SeedSequence:
    """The root of experiment ``name``'s stream under the chapter seed ``seed``."""
    return np.random.SeedSequence([check_int("seed", seed, 0), key_number(name)])


def experiment_rng(seed: int, name: str) -> np.random.Generator:
    """The generator of experiment ``name`` under the chapter seed ``seed``."""
    return np.random.default_rng(seed_sequence(seed, name))


def library_seed(seed: int, name: str) -> int:
    """The integer seed handed to a library that takes one (scikit-learn's ``random_state``, pystreed's
    ``random_seed``) for experiment ``name`` under the chapter seed ``seed``: the top 31 bits of the
    first word of the experiment's keyed seed sequence, in [0, 2^31) (pystreed refuses larger seeds)."""
    return int(seed_sequence(seed, name).generate_state(1)[0]) >> 1


def experiment_streams(seed: int, name: str, count: int) -> list[np.random.Generator]:
    """``count`` independent generators of experiment ``name`` under the chapter seed ``seed``.

    Generator i is seeded by the i-th child of :func:`seed_sequence` ``(seed, name)``, so it depends only on
    (seed, name, i): repetition i gets the same stream whatever ``count`` is.
    """
    count = check_int("count", count, 1)
    return [np.random.default_rng(child) for child in seed_sequence(seed, name).spawn(count)]
