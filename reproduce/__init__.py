"""Reproduction of the GOAT paper's experiments on goat_core's leak-free protocol.

Run ``python -m reproduce --help``; RESULTS.md at the repository root documents the tables.
"""
