"""GAE and VGAE (Kipf & Welling 2016) run here on section 5's 90/10 splits of Cora2 and Citeseer.

    python -m reproduce.vgae --out results [--data cora2 citeseer] [--seeds 0 1 2]

torch_geometric's GAE/VGAE with the VGAE paper's settings for its featureless runs, untuned:
identity node features (X = I), a two-layer GCN encoder (32 then 16 units), Adam lr 0.01, 200
full-batch epochs, the inner-product decoder, the KL term weighted 1/n (VGAE). Each epoch draws as
many training non-edges as training edges. Pairs are scored by z_s·z_t (the mean embedding for
VGAE) on the split's held-out edges against its non-edges, the pairs GOAT is scored on. Each run is
kept in results/vgae/ (small JSON, committed); resumable.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import torch

from goat_core.analysis.evaluation import link_scores
from goat_core.analysis.node2vec import dot_scores
from goat_core.data.graph import Graph
from goat_core.data.sampling import split_edges
from goat_core.paper import VGAE_QUOTED

from .common import Timer, dataset, read_json, setup_env, write_json
from .experiments import SEEDS

DIR = Path("vgae")
DATASETS = ("cora2", "citeseer")
RATIO = 0.9
MODELS = {"gae": "GAE", "vgae": "VGAE"}
SETTINGS = dict(hidden=32, latent=16, lr=0.01, epochs=200)  # the VGAE paper's


def _encoder(n: int, hidden: int, latent: int, variational: bool) -> torch.nn.Module:
    from torch_geometric.nn import GCNConv

    class Encoder(torch.nn.Module):
        """Two GCN layers; VGAE's second layer is a pair (mean, log std)."""

        def __init__(self):
            super().__init__()
            self.conv1 = GCNConv(n, hidden, cached=True)
            self.mu = GCNConv(hidden, latent, cached=True)
            self.logstd = GCNConv(hidden, latent, cached=True) if variational else None

        def forward(self, x, edge_index):  # x (n, n) -> (n, latent), or a pair of them
            h = self.conv1(x, edge_index).relu()  # (n, hidden)
            if self.logstd is None:
                return self.mu(h, edge_index)
            return self.mu(h, edge_index), self.logstd(h, edge_index)

    return Encoder()


def _non_edges(keys: np.ndarray, n: int, count: int, rng: np.random.Generator) -> torch.Tensor:
    """``count`` uniform node pairs (2, count) that are neither self-pairs nor training edges."""
    chosen = np.empty((0, 2), dtype=np.int64)
    while len(chosen) < count:
        pairs = rng.integers(0, n, size=(2 * count, 2))
        pairs = pairs[(pairs[:, 0] != pairs[:, 1]) & ~np.isin(pairs[:, 0] * n + pairs[:, 1], keys)]
        chosen = np.concatenate([chosen, pairs])
    return torch.from_numpy(chosen[:count].T.copy())


def embed(train: Graph, variational: bool, seed: int, hidden: int = 32, latent: int = 16, lr: float = 0.01,
          epochs: int = 200) -> np.ndarray:
    """(n, latent) node embeddings of a GAE/VGAE trained on ``train``'s edges with X = I."""
    from torch_geometric.nn import GAE, VGAE

    n = train.num_nodes
    src, dst = (torch.from_numpy(a) for a in train.undirected_pairs())
    pos = torch.stack([src, dst])  # (2, m) each training edge once
    edge_index = torch.cat([pos, pos.flip(0)], dim=1)  # (2, 2m) both directions for the GCN
    keys = np.concatenate([(src * n + dst).numpy(), (dst * n + src).numpy()])
    rng = np.random.default_rng(seed)
    with torch.random.fork_rng():  # PyG's initialisation and VGAE's noise draw from torch's generator
        torch.manual_seed(seed)
        model = (VGAE if variational else GAE)(_encoder(n, hidden, latent, variational))
        opt = torch.optim.Adam(model.parameters(), lr=lr)
        x = torch.eye(n)  # featureless: identity features
        for _ in range(epochs):
            model.train()
            opt.zero_grad()
            z = model.encode(x, edge_index)
            loss = model.recon_loss(z, pos, _non_edges(keys, n, pos.shape[1], rng))
            if variational:
                loss = loss + model.kl_loss() / n
            loss.backward()
            opt.step()
        model.eval()
        with torch.no_grad():
            return model.encode(x, edge_index).numpy().astype(np.float64)  # VGAE: the mean in eval mode


def run_path(out: Path, model: str, data: str, seed: int) -> Path:
    return out / DIR / f"{model}-{data}{round(100 * RATIO)}-s{seed}.json"


def run_one(out: Path, model: str, data: str, seed: int) -> dict:
    split = split_edges(dataset(data), RATIO, seed)  # section 5's split
    with Timer() as t:
        z = embed(split.train, model == "vgae", seed, **SETTINGS)
    labels = np.r_[np.ones(len(split.test_pos)), np.zeros(len(split.test_neg))]
    scores = link_scores(labels, dot_scores(z, np.concatenate([split.test_pos, split.test_neg])))
    row = {"model": model, "dataset": data, "train_ratio": RATIO, "seed": seed, "settings": SETTINGS,
           "features": "identity", **scores, "seconds": t.seconds,
           "train_edges": int(split.train.num_edges), "test_edges": int(len(split.test_pos))}
    write_json(run_path(out, model, data, seed), row)
    print(f"{model} {data} s{seed}: AUC {row['auc']:.4f} AP {row['ap']:.4f}, {t.seconds:.0f}s", flush=True)
    return row


def markdown(out: Path) -> str:
    """The stage's summary beside GOAT's rows ("" until this script has run)."""
    from .node2vec import GOAT_ZERO_90, GOAT_ZERO_90_NOTE, goat_at_90, goat_zero_at_90

    runs = [read_json(p) for p in sorted((out / DIR).glob("*.json"))]
    if not runs:
        return ""
    rows = []
    for data in DATASETS:
        for model, label in MODELS.items():
            found = [r for r in runs if (r["model"], r["dataset"]) == (model, data)]
            if found:
                auc, ap = (np.array([100 * r[k] for r in found]) for k in ("auc", "ap"))
                rows.append(f"| {data} | **{label}**, no features (ours, n={len(found)}) | "
                            f"{auc.mean():.1f} ± {auc.std():.1f} | {ap.mean():.1f} ± {ap.std():.1f} |")
        goat = goat_at_90(out, data)
        if goat:
            rows.append(f"| {data} | GOAT, masked padding (section 5) | {goat['ours GOAT AUC']} | "
                        f"{goat['ours GOAT AP']} |")
        zero = goat_zero_at_90(out, data)
        if zero:
            rows.append(f"| {data} | {GOAT_ZERO_90} | {zero[0]} | {zero[1]} |")
        if data in VGAE_QUOTED:
            rows.append(f"| {data} | VGAE with features, quoted (Kipf & Welling 2016, their split) | "
                        "{:.1f} | {:.1f} |".format(*VGAE_QUOTED[data]))
    return "\n".join([
        "\n## GAE and VGAE run here (Cora2 and Citeseer, 90 % training edges)\n",
        "`python -m reproduce.vgae --out results` (torch_geometric's GAE/VGAE; the VGAE paper's featureless "
        "settings, untuned: X = I, GCN 32-16, Adam lr 0.01, 200 epochs; scored by z_s·z_t). The same splits, "
        "held-out edges and non-edges as section 5's GOAT runs, seeds "
        f"{', '.join(map(str, SEEDS))}; each run in `results/vgae/`. Section 5's GOAT masked its pads; "
        f"its row is copied from `results/vgae_90.csv`. {GOAT_ZERO_90_NOTE}\n",
        "| dataset | method | AUC % | AP % |", "|---|---|---|---|", *rows]) + "\n"


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path("results"))
    ap.add_argument("--data", nargs="*", default=list(DATASETS), choices=list(DATASETS))
    ap.add_argument("--seeds", type=int, nargs="*", default=list(SEEDS))
    args = ap.parse_args(argv)
    setup_env()
    for seed in args.seeds:
        for data in args.data:
            for model in MODELS:
                if not run_path(args.out, model, data, seed).exists():
                    run_one(args.out, model, data, seed)
    print(markdown(args.out))


if __name__ == "__main__":
    main()
