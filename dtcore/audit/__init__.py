"""Audits: measuring runs of the learners from the outside (see ARCHITECTURE.md).

Nothing in ``dtcore``'s algorithm modules imports this subpackage. It holds the one replay of a
grown tree (:mod:`~dtcore.audit.replay`), comparisons with peer implementations
(:mod:`~dtcore.audit.compare`) and brute-force and counting oracles (:mod:`~dtcore.audit.oracles`).
"""
