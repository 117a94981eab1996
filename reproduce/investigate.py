"""Follow-up experiments: the leak measured on our own models (RESULTS.md), clustering inputs.

    python -m reproduce.investigate clustering --out results   # k-means input variants, Email 35/75 %
    python -m reproduce.investigate leak --out results         # our models under the authors' leaky protocol

Clustering has no validation protocol in the paper (labels are only used for scoring), so every
variant tried is reported, and the main table keeps the variant fixed before looking
(k-means on the raw context embeddings).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from goat_core import Goat, evaluate_clustering, evaluate_link_prediction
from goat_core.data.sampling import split_edges

from .common import Timer, dataset, setup_env, untrained, write_json
from .experiments import params_for


def _l2(x):
    return x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-12)


def clustering_variants(out: Path, ratios=(0.35, 0.75), seed: int = 0, epochs_factor: int = 1) -> list[dict]:
    graph = dataset("email")
    rows = []
    for ratio in ratios:
        split = split_edges(graph, ratio, seed)
        for variant in ("goat", "global"):
            params = params_for("email", variant, ratio, seed=seed)
            params["epochs"] *= epochs_factor
            with Timer() as t:
                goat = Goat(**params).fit(split.train)
            ctx = goat.node_embeddings("context") if variant == "goat" else goat.node_embeddings("global")
            glob = goat.node_embeddings("global")
            inputs = {
                "context": ctx,
                "context-l2": _l2(ctx),
                "global": glob,
                "global-l2": _l2(glob),
                "concat-l2": np.hstack([_l2(ctx), _l2(glob)]),
            }
            for name, emb in inputs.items():
                if variant == "global" and name.startswith(("context", "concat")):
                    continue
                r = evaluate_clustering(emb, split.train.labels, seed)
                rows.append(
                    {
                        "ratio": ratio,
                        "variant": variant,
                        "epochs": params["epochs"],
                        "input": name,
                        "nmi": r["nmi"],
                        "ami": r["ami"],
                        "fit_seconds": t.seconds,
                    }
                )
                print(rows[-1], flush=True)
            write_json(out / "investigate_clustering.json", rows)
    return rows


def _leaky(goat: Goat, graph) -> Goat:
    """The same fitted model, but neighborhoods drawn from the *full* graph (the authors' protocol)."""
    return goat.with_inference_graph(graph)


def leak(out: Path, ratios=(0.15, 0.55), seed: int = 0) -> list[dict]:
    """How much the authors' full-graph neighborhoods inflate scores, for our trained and untrained GOAT.

    Link prediction: the same test pairs (held-out edges vs verified non-edges), scored with inference
    neighborhoods from the training graph (ours) or from the full graph (test edges inside). Clustering:
    context embeddings averaged over training-graph neighbors or over all neighbors.
    """
    graph = dataset("email")
    rows = []
    for ratio in ratios:
        split = split_edges(graph, ratio, seed)
        params = params_for("email", "goat", ratio, seed=seed)
        with Timer() as t:
            trained = Goat(**params).fit(split.train)
        for name, goat in (("trained", trained), ("untrained", untrained(Goat(**params), split.train))):
            row = {"ratio": ratio, "model": name, "fit_seconds": t.seconds}
            clean_lp = evaluate_link_prediction(goat, split)
            clean_cl = evaluate_clustering(goat.node_embeddings("context"), graph.labels, seed)
            goat = _leaky(goat, graph)
            leaky_lp = evaluate_link_prediction(goat, split)
            goat.exclude_partner = False  # the authors' code also kept the partner in the neighborhood
            partner_lp = evaluate_link_prediction(goat, split)
            goat.exclude_partner = True
            leaky_cl = evaluate_clustering(goat.node_embeddings("context"), graph.labels, seed)
            row.update(
                {
                    "auc_leak_free": clean_lp["auc"],
                    "auc_leaky": leaky_lp["auc"],
                    "auc_leaky_partner": partner_lp["auc"],
                    "ap_leak_free": clean_lp["ap"],
                    "ap_leaky": leaky_lp["ap"],
                    "nmi_leak_free": clean_cl["nmi"],
                    "nmi_leaky": leaky_cl["nmi"],
                    "ami_leak_free": clean_cl["ami"],
                    "ami_leaky": leaky_cl["ami"],
                }
            )
            rows.append(row)
            print(row, flush=True)
            write_json(out / "investigate_leak.json", rows)
    return rows


def main(argv=None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=["clustering", "leak"])
    ap.add_argument("--out", type=Path, default=Path("results"))
    ap.add_argument("--epochs-factor", type=int, default=1)
    args = ap.parse_args(argv)
    setup_env()
    if args.what == "clustering":
        clustering_variants(args.out, epochs_factor=args.epochs_factor)
    else:
        leak(args.out)


if __name__ == "__main__":
    main()
