"""A fingerprint of GOAT's numbers: hashes of the embeddings, losses, scores, AUC, attention (with
a mute and uniform attention), tracked history, context embeddings and the Equations page's
numbers, for a grid of compute paths, variants and paddings on Les Misérables (seed 0, 3 epochs).

    python bench/fingerprint.py > before.txt   # then, after a refactor:
    python bench/fingerprint.py > after.txt && diff before.txt after.txt
    FINGERPRINT_SCORES=DIR python bench/fingerprint.py   # also saves each config's decision scores
    python bench/fingerprint.py --compare-scores OLD_DIR NEW_DIR   # how far two trees' scores differ

The same tree on the same machine prints the same lines; a refactor that changes no behaviour
leaves every line as it was (issue 26 moved every module with this unchanged).
"""

import hashlib
import json
import os
import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
torch.set_num_threads(1)
from goat_core import Goat, NodeIndex, evaluate_link_prediction, load_graph, split_edges  # noqa: E402
from goat_core.analysis.equations import pair_equations  # noqa: E402
from goat_core.analysis.spread import context_spread  # noqa: E402


def h(*arrays) -> str:
    """A short hash of arrays' dtypes, shapes and bytes."""
    m = hashlib.sha256()
    for a in arrays:
        a = np.ascontiguousarray(np.asarray(a))
        m.update(str(a.dtype).encode() + str(a.shape).encode() + a.tobytes())
    return m.hexdigest()[:16]


CONFIGS = {
    "fused-goat-zero": dict(backend="fused"),
    "fused-goat-mask": dict(backend="fused", padding="mask"),
    "torch-goat-zero": dict(backend="torch"),
    "torch-goat-mask": dict(backend="torch", padding="mask"),
    "module-goat-zero": dict(backend="module"),
    "module-goat-mask": dict(backend="module", padding="mask"),
    "fused-meanpool-zero": dict(backend="fused", variant="mean-pool"),
    "module-meanpool-mask": dict(backend="module", variant="mean-pool", padding="mask"),
    "module-global": dict(backend="module", variant="global"),
    "fused-lazy": dict(backend="fused", optimizer="lazy-adam"),
    "torch-lazy-mask": dict(backend="torch", optimizer="lazy-adam", padding="mask"),
    "fused-earlystop": dict(backend="fused", validation_fraction=0.2, patience=2, epochs=4),
    "fused-draws3": dict(backend="fused", inference_draws=3),
}
BASE = dict(dim=32, neighborhood=20, batch_size=64, epochs=3, validation_fraction=0.0, seed=0, lr=0.01)

def compare_scores(old: Path, new: Path) -> None:
    """The largest absolute and relative difference of each config's saved decision scores."""
    for path in sorted(old.glob("*.npy")):
        a, b = (np.load(p, allow_pickle=False).astype(np.float64) for p in (path, new / path.name))
        rel = np.abs(a - b) / np.maximum(np.abs(a), 1e-12)
        order = np.array_equal(np.argsort(a, kind="stable"), np.argsort(b, kind="stable"))
        print(f"{path.stem:22s} max |diff| {np.abs(a - b).max():.3g}, max relative {rel.max():.3g}, "
              f"{int((a != b).sum())} of {len(a)} scores differ, same order: {order}")


if sys.argv[1:2] == ["--compare-scores"]:
    compare_scores(Path(sys.argv[2]), Path(sys.argv[3]))
    sys.exit(0)
DUMP = os.environ.get("FINGERPRINT_SCORES")  # a folder: each config's decision scores saved there
graph = load_graph("lesmis")
split = split_edges(graph, 0.8, seed=0)
out = {}
only = sys.argv[1:]
for name, extra in CONFIGS.items():
    if only and name not in only:
        continue
    params = dict(BASE, **extra)
    track = None if params.get("variant") == "global" else [("Marius", "Thenardier")]
    goat = Goat(**params).fit(split.train, track_pairs=track)
    row = {"backend_": goat.backend_, "embedding": h(goat.embedding_),
           "loss": h(np.array([r["loss"] for r in goat.history_]))}
    lp = evaluate_link_prediction(goat, split)
    row["auc"] = repr(lp["auc"])
    row["ap"] = repr(lp["ap"])
    pairs = np.concatenate([split.test_pos, split.test_neg])
    decision = goat.decision_function(pairs)
    row["decision"] = h(decision)
    if DUMP:
        np.save(Path(DUMP) / f"{name}.npy", decision)
    row["proba"] = h(goat.predict_proba(pairs[:50]))
    row["top"] = repr(goat.top_partners("Marius", k=3))
    if params.get("variant") != "global":
        a = goat.attention("Marius", "Thenardier")
        row["attention"] = h(a.alignment, a.source_attention, a.target_attention, a.r_source, a.r_target,
                             np.array([a.score, a.probability, a.source_padding, a.target_padding]))
        u = goat.attention("Marius", "Thenardier", uniform=True)
        m = goat.attention("Marius", "Thenardier", mute=[a.source_names[0]])
        row["uniform_mute"] = h(u.source_attention, np.array([u.score]), m.source_attention,
                                np.array([m.score]))
        hist = goat.attention_history("Marius", "Thenardier")
        row["history"] = h(hist.source_attention, hist.target_attention, hist.score, hist.uniform_score,
                           hist.probability, hist.source_entropy)
        row["context"] = h(goat.node_embeddings("context"))
        eq = pair_equations(goat, "Marius", "Thenardier")
        row["equations"] = h(eq.A, eq.a_s, eq.a_t, eq.p_s, eq.p_t, eq.r_s, eq.r_t,
                             np.array([eq.score, eq.model_score, eq.pad_share_s, eq.pad_share_t,
                                       eq.probability]))
        if name == "fused-goat-zero":
            sp = context_spread(goat)
            row["spread"] = h(sp.spread, sp.personas)
        a2 = goat.attention(NodeIndex(55), NodeIndex(25))
        row["attention_idx"] = h(a2.source_attention, np.array([a2.score]))
    if goat.early_stopping_:
        row["early"] = repr(goat.early_stopping_)
    out[name] = row
    print(name, json.dumps(row, sort_keys=True), flush=True)
print("TOTAL", h(np.frombuffer(json.dumps(out, sort_keys=True).encode(), dtype=np.uint8)))
