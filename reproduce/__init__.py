"""Reproduction of the GOAT paper's experiments on goat_core's leak-free protocol.

Run ``python -m reproduce --help``; ``python -m reproduce.report`` writes RESULTS.md
from the result files committed under ``results/``.
"""
