"""Time to quality: Email 55 % split to test AUC ≥ 0.817, and Les Misérables to a stable result.

    python bench/time_to_quality.py --json
    python bench/time_to_quality.py --lr 1e-4 --max-epochs 60     # the paper's learning rate

Email: ``Goat`` trained on the 55 % split (seed 0) with d=200, N=100, dropout 0.8 (the paper's
Table 2) and a learning rate chosen on a validation split carved from the training edges
(``reproduce.grid``, trial email55-goat-lr3e-3-do0.8: lr 3e-3, batch 256; test edges were never
used for that choice). After every epoch the held-out test edges are scored against as many
verified non-edges; the clock is training time only (scoring is timed and reported apart) and
stops at the first epoch whose test AUC reaches the target.

Les Misérables (77 nodes, 254 edges, all edges trained; the app's fast preset and d=200):
"stable" = Marius's top-5 attention when gossiping with Thenardier (the paper's case study)
unchanged over 3 consecutive epochs and the 5-epoch mean training loss within 3 % of the
previous 5 epochs' (the loss of a 500-pair epoch is noisy; the answer is what the class sees).
"""

from __future__ import annotations

import argparse
import json
import time

from _common import configure_threads, machine


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", type=float, default=0.817)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--max-epochs", type=int, default=30)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--spin", action="store_true")
    parser.add_argument("--skip-lesmis", action="store_true")
    parser.add_argument("--json", action="store_true")
    return parser.parse_args()


class Clock:
    """Training time from the step callbacks: time spent scoring at epoch ends is left out."""

    def __init__(self):
        self.start = time.perf_counter()
        self.last_step = self.start
        self.scoring = 0.0

    def __call__(self, progress):
        now = time.perf_counter()
        if progress.epoch_end:
            self.scoring += now - self.last_step  # validation scoring ran since the last step
        self.last_step = now

    def training_seconds(self, progress) -> float:
        return progress.elapsed - self.scoring


def email_run(args) -> dict:
    import numpy as np

    from goat_core import Goat, load_graph, split_edges

    split = split_edges(load_graph("email"), 0.55, args.seed)
    test = (split.test_pos, split.test_neg)
    clock = Clock()
    epochs_log = []
    reached = {}

    def callback(progress):
        clock(progress)
        if progress.epoch_end:
            seconds = clock.training_seconds(progress)
            epochs_log.append({"epoch": progress.epoch, "test_auc": progress.val_auc,
                               "train_s": seconds, "loss": progress.loss})
            print(f"  epoch {progress.epoch:3d}: test AUC {progress.val_auc:.4f} after {seconds:6.1f} s "
                  f"of training (loss {progress.loss:.4f})", flush=True)
            if progress.val_auc >= args.target and not reached:
                reached.update(epoch=progress.epoch, seconds=seconds, auc=progress.val_auc)
                return False
        return True

    goat = Goat(dim=200, neighborhood=100, dropout=0.8, lr=args.lr, epochs=args.max_epochs,
                batch_size=args.batch_size, seed=args.seed, device="cpu",
                padding="mask", validation_fraction=0.0)  # as its recorded numbers were taken
    try:
        goat.fit(split.train, callback=callback, validation=test)
    except Exception as err:  # TrainingCancelled once the target is reached
        if type(err).__name__ != "TrainingCancelled":
            raise
    return {
        "target_auc": args.target, "reached": bool(reached), "epochs": reached.get("epoch"),
        "train_seconds": reached.get("seconds"), "auc": reached.get("auc"),
        "scoring_seconds": clock.scoring, "lr": args.lr, "batch_size": args.batch_size,
        "best_auc": float(np.nanmax([e["test_auc"] for e in epochs_log])) if epochs_log else None,
        "epoch_log": epochs_log,
    }


LESMIS_CONFIGS = {
    "app fast preset": dict(dim=64, neighborhood=100, dropout=0.3, lr=1e-2, batch_size=64),
    "paper d=200, N=100, dropout 0.5": dict(dim=200, neighborhood=100, dropout=0.5, lr=3e-3, batch_size=64),
}


def lesmis_run(args, max_epochs: int = 80) -> dict:
    """Stable = Marius's top-5 attention (with Thenardier) unchanged for 3 epoch ends in a row
    and the 5-epoch mean loss within 3 % of the previous 5 epochs'."""
    import torch

    from goat_core import load_graph
    from goat_core.backends.batch import make_batch
    from goat_core.data.sampling import Adjacency, sample_neighborhoods
    from goat_core.model import Goat as GoatModule
    from goat_core.training import TrainingCancelled, run_training

    graph = load_graph("lesmis")
    s, t = graph.index_of("Marius"), graph.index_of("Thenardier")
    out = {}
    for name, cfg in LESMIS_CONFIGS.items():
        gen = torch.Generator().manual_seed(args.seed)
        model = GoatModule(graph.num_nodes, cfg["dim"], "max", cfg["dropout"], gen)
        hood = sample_neighborhoods(Adjacency.from_graph(graph), cfg["neighborhood"],
                                    torch.Generator().manual_seed(args.seed + 1))
        batch = make_batch(torch.tensor([s]), torch.tensor([t]), hood, True)
        ids = batch.nbr_s[0][batch.mask_s[0]].tolist()
        clock, losses, tops, found = Clock(), [], [], {}

        def callback(progress, model=model, batch=batch, ids=ids, clock=clock, losses=losses, tops=tops,
                     found=found):
            clock(progress)
            if not progress.epoch_end:
                return True
            with torch.no_grad():
                model.eval()
                _, (_, _, p_s, _, _) = model(*batch.args())
            weights = p_s[0][batch.mask_s[0]]
            tops.append(frozenset(graph.names[ids[i]] for i in torch.argsort(-weights)[:5].tolist()))
            losses.append(progress.loss)
            if len(losses) >= 10 and len(set(tops[-3:])) == 1:
                now, before = sum(losses[-5:]) / 5, sum(losses[-10:-5]) / 5
                if abs(now - before) / before < 0.03:
                    found.update(epoch=progress.epoch, seconds=clock.training_seconds(progress),
                                 top5=sorted(tops[-1]), loss=now)
                    return False
            return True

        try:
            run_training(model, graph, epochs=max_epochs, batch_size=cfg["batch_size"], lr=cfg["lr"],
                         negatives=1, neighborhood=cfg["neighborhood"], exclude_partner=True,
                         generator=gen, device=torch.device("cpu"), backend="fused", callback=callback)
        except TrainingCancelled:
            pass
        out[name] = {"stable": bool(found), "epochs": found.get("epoch"),
                     "train_seconds": found.get("seconds"), "mean_loss_last5": found.get("loss"),
                     "marius_top5_with_thenardier": found.get("top5"),
                     "config": cfg}
        if found:
            print(f"  {name}: stable after {found['epoch']} epochs, {found['seconds']:.2f} s of training; "
                  f"Marius's top-5 with Thenardier: {', '.join(found['top5'])}", flush=True)
        else:
            print(f"  {name}: not stable within {max_epochs} epochs", flush=True)
    return out


def main() -> None:
    args = parse_args()
    configure_threads(args.threads, args.spin)
    import torch

    from goat_core.training import small_machine_threads

    threads = args.threads or small_machine_threads()  # as the CLI and the app set it
    if threads:
        torch.set_num_threads(threads)
    print(f"Email 55 %: to test AUC >= {args.target} (lr {args.lr}, batch {args.batch_size})", flush=True)
    result = {"email": email_run(args)}
    if not args.skip_lesmis:
        print("Les Miserables: to a stable result", flush=True)
        result["lesmis"] = lesmis_run(args)
    result["machine"] = machine()
    email = result["email"]
    print(f"Email: AUC {email['auc']} after {email['epochs']} epochs, {email['train_seconds']} s of training"
          if email["reached"] else f"Email: target not reached in {args.max_epochs} epochs")
    if args.json:
        print(json.dumps(result))


if __name__ == "__main__":
    main()
