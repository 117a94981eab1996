"""``PARAMETERS`` is the one source of ``Goat``'s parameters: the signature holds exactly its
names and defaults, and the class docstring is made from its meanings."""

from __future__ import annotations

import inspect
import re

from goat_core import PARAMETERS, Goat
from goat_core.parameters import parameter_docs


def test_the_signature_is_the_declared_parameters_with_their_defaults():
    signature = inspect.signature(Goat.__init__).parameters
    assert list(signature)[0] == "self"
    declared = {name: p.default for name, p in signature.items() if name != "self"}
    assert declared == {name: spec.default for name, spec in PARAMETERS.items()}
    assert Goat().get_params() == {name: spec.default for name, spec in PARAMETERS.items()}


def test_the_docstring_lists_every_parameter_with_its_default_and_meaning():
    def flat(text: str) -> str:
        return re.sub(r"\s+", " ", text)

    doc = flat(Goat.__doc__ or "")
    for name, spec in PARAMETERS.items():
        assert f"* {name}={spec.default!r}: {flat(spec.meaning)}" in doc, name
    assert "{parameters}" not in doc
    assert parameter_docs().count("\n    * ") == len(PARAMETERS) - 1
