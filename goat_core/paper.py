"""The paper's constants, in one place (Kefato & Girdzijauskas, "Gossip and Attend", AAAI 2020).

Table 2 (hyper-parameters per dataset) and the Les Misérables case-study ids. Every other
module, the app and the reproduction read them from here.
"""

from __future__ import annotations

# Table 2: d = 200 and lr = 1e-4 everywhere; dropout and N per dataset.
PAPER_DIM = 200
PAPER_LR = 1e-4
PAPER_NEIGHBORHOOD = 100
PAPER_DROPOUT = 0.5
TABLE2 = {  # dataset -> what differs from the defaults above
    "email": {"dropout": 0.8},
    "zhihu": {"dropout": 0.65, "neighborhood": 250},
}

# The case study (section 5), in Newman's lesmis numbering 0..76 (networkx keys the same
# graph by name): Marius gossiping with Thenardier and with Gavroche.
MARIUS, THENARDIER, GAVROCHE = 55, 25, 48
CASE_STUDY_PAIRS = ((MARIUS, THENARDIER), (MARIUS, GAVROCHE))


def paper_config(dataset: str) -> dict:
    """Table 2 of the paper for ``dataset`` (any other name: the common settings)."""
    config = {"dim": PAPER_DIM, "neighborhood": PAPER_NEIGHBORHOOD, "dropout": PAPER_DROPOUT, "lr": PAPER_LR}
    config.update(TABLE2.get(dataset, {}))
    return config
