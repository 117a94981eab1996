"""``python -m goat_core``: info, train, convert, attention, faithfulness, linkpred, audit, compare, cluster,
tune. A :class:`~.errors.GoatError` exits with status 2 and one line, ``error: FILE:LINE: problem``
(``--debug``: its traceback); anything else is a bug and keeps its traceback."""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

from . import presets
from .analysis.compare import compare_runs, variant_params
from .analysis.evaluation import check_clustering_labels, evaluate_clustering, evaluate_link_prediction
from .analysis.ranking import DEFAULT_PER_POSITIVE, RANKING_NEGATIVES
from .backends.batch import PADDINGS
from .data.datasets import BUNDLED, load_graph
from .data.formats import FORMAT_ALIASES, FORMATS
from .data.graph import Graph, read_labels
from .data.sampling import split_edges
from .errors import GoatError
from .estimator import Goat
from .parameters import PARAMETERS, VARIANTS
from .persistence import check_run_target
from .training import small_machine_threads

CLI_PRESETS = ("validated", "paper")


class CliError(GoatError):
    """A user-facing problem found by the CLI itself: printed as one line, exit status 2."""


class OneLineParser(argparse.ArgumentParser):
    """argparse's parser, whose usage errors are one line too (``error: ...``, status 2), as every
    other input error: the usage is one ``--help`` away."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"error: {self.prog}: {message} (see {self.prog} --help)\n")


INVERTED_FLAGS = {"exclude_partner": ("--include-partner", "keep the partner inside each other's "
                                                         "neighborhood (default: left out)")}


def add_training_options(parser: argparse.ArgumentParser, leave_out: tuple[str, ...] = ()) -> None:
    """One option per :data:`PARAMETERS` entry (``batch_size`` → ``--batch-size``), left unset for the
    preset to fill (:func:`goat_from_args`); ``leave_out``: parameters the command sets its own way."""
    group = parser.add_argument_group("training options (defaults: the --preset's values)")
    group.add_argument("--preset", choices=CLI_PRESETS, default="validated", help=(
        "validated (default) = Goat()'s defaults: the configuration validated on Email, epochs chosen "
        "by early stopping on 20%% of the training edges; paper = Table 2 literally (d 200, lr 1e-4, "
        "20 epochs, the dataset's dropout and N, no early stopping)"))
    for name, spec in PARAMETERS.items():
        if name in leave_out:
            continue
        if name in INVERTED_FLAGS:
            flag, meaning = INVERTED_FLAGS[name]
            group.add_argument(flag, dest=name, action="store_false", default=None, help=meaning)
            continue
        kind = {"type": type(spec.default)} if spec.choices is None else {"choices": spec.choices}
        group.add_argument("--" + name.replace("_", "-"), dest=name, default=None, **kind,
                           help=f"{spec.meaning} (default: {spec.default})")
    group.add_argument("--directed", action="store_true", help="read edges as directed")


def _aliases() -> str:
    """'csv/tsv/txt = edgelist, …': every other name --format takes, by the format it names."""
    names: dict[str, list[str]] = {}
    for alias, name in FORMAT_ALIASES.items():
        names.setdefault(name or "", []).append(alias)
    return ", ".join(f"{'/'.join(aliases)} = {name}" for name, aliases in names.items() if name)


def add_read_options(parser: argparse.ArgumentParser) -> None:
    """How to read GRAPH when it is a file: the same choices as the library's keywords."""
    group = parser.add_argument_group("reading a graph file (default: found from its content)")
    group.add_argument("--format", choices=FORMATS + tuple(FORMAT_ALIASES), metavar="FORMAT",
                       help=f"the file's format: {', '.join(FORMATS)} ({_aliases()}; auto = detect, "
                            "the default)")
    group.add_argument("--source", metavar="COL", help="edge tables (CSV, pandas JSON, Parquet, Excel): the "
                                                       "source column, by header name or 0-based position "
                                                       "(with --target)")
    group.add_argument("--target", metavar="COL", help="edge tables: the target column (name or position)")
    group.add_argument("--weight", metavar="COL", help="edge tables: the weight column (name or position); "
                                                       "networkx formats: the edge attribute; none: "
                                                       "unweighted")
    group.add_argument("--encoding", metavar="NAME", help="a text file not in UTF-8: its encoding, e.g. "
                                                          "cp1252 (Excel's CSV on Windows), latin-1, gbk")


def load(args: argparse.Namespace) -> Graph:
    """GRAPH as the command line asks for it."""
    return load_graph(args.graph, directed=args.directed, format=args.format, source=args.source,
                      target=args.target, weight=args.weight, encoding=args.encoding)


def goat_from_args(args: argparse.Namespace) -> Goat:
    """``Goat`` with the options given, the rest from the preset (``validated``: the defaults; ``paper``:
    Table 2 for the graph's dataset), every parameter and the device checked before any work."""
    params = {name: spec.default for name, spec in PARAMETERS.items()}
    if getattr(args, "preset", "validated") == "paper":  # Table 2 of a bundled graph, or of a file's stem
        dataset = args.graph if args.graph in BUNDLED else Path(args.graph).stem.lower()
        params.update({k: v for k, v in presets.paper(dataset).items() if k != "holdout"})
    params.update({name: getattr(args, name) for name in PARAMETERS if getattr(args, name, None) is not None})
    goat = Goat(**params)
    goat.resolved_device()  # ParameterError for a bad value or a device this machine lacks
    return goat


def check_train_ratio(ratio: float, allow_one: bool) -> None:
    """``--train-ratio`` in (0, 1) (link prediction: some edges must be held out), or (0, 1] when
    training on every edge is allowed (clustering)."""
    top = "1]" if allow_one else "1)"
    if not (math.isfinite(ratio) and 0.0 < ratio and (ratio <= 1.0 if allow_one else ratio < 1.0)):
        raise CliError(f"--train-ratio must be a number in (0, {top}, the share of edges to train on; got "
                       f"{ratio}")


class TerminalProgress:
    """A one-line progress bar on stderr, only when stderr is a terminal."""

    def __init__(self) -> None:
        self.stream = sys.stderr  # the stderr of now, not of import
        self.active = self.stream.isatty()
        self.stage = ""

    def __call__(self, progress) -> None:
        if not self.active:
            return
        width = 30
        filled = int(width * progress.fraction)
        extra = f" val AUC {progress.val_auc:.3f}" if progress.val_auc is not None else ""
        stage = "choosing epochs: " if progress.stage == "select" else ""
        if progress.stage != self.stage and self.stage:
            self.stream.write("\n")  # early stopping ended before its most epochs: keep its line
        self.stage = progress.stage
        self.stream.write(
            f"\r{stage}[{'#' * filled}{'.' * (width - filled)}] epoch {progress.epoch}/{progress.epochs} "
            f"loss {progress.loss:.4f}{extra} {progress.elapsed:.0f}s"
        )
        if progress.epoch_end and progress.epoch == progress.epochs:
            self.stream.write("\n")
        self.stream.flush()


def to_json(result: dict) -> str:
    """Strict JSON: a NaN or an infinity is a bug to see, never an invalid ``NaN`` in the output."""
    return json.dumps(result, allow_nan=False)


def emit(result: dict, as_json: bool) -> None:
    if as_json:
        print(to_json(result))
        return
    for key, value in result.items():
        if isinstance(value, float):
            value = f"{value:.4f}"
        print(f"{key}: {value}")


def cmd_info(args: argparse.Namespace) -> None:
    graph = load(args)
    info = graph.summary()
    if graph.labels is not None:
        info["label_classes"] = len(graph.labels.classes)
    if graph.node_attrs and graph.read is not None:
        info["node_attributes"] = list(graph.node_attrs)
    if graph.read is not None:
        info["read"] = graph.read.to_dict()
    read = None if args.json else info.pop("read", None)  # text: the account of the read comes last
    emit(info, args.json)
    if read is not None:  # the account of the read, then the first rows as read
        print(f"read: {read['summary']}")
        for note in read["notes"]:
            print(f"  note: {note}")
        for row in read["first_rows"]:
            print("  " + "  ".join(row))


def cmd_train(args: argparse.Namespace) -> None:
    check_run_target(args.out, overwrite=args.overwrite)  # found before training, not after
    goat = goat_from_args(args)
    graph = load(args)
    start = time.perf_counter()
    goat.fit(graph, callback=TerminalProgress(), track_pairs=args.track_pairs)
    check_run_target(args.out, overwrite=args.overwrite)  # still free: nothing appeared there meanwhile
    goat.save(args.out)
    emit({
        "run_dir": str(args.out), "nodes": graph.num_nodes, "edges": graph.num_edges,
        "epochs": goat.epochs, "epochs_trained": len(goat.history_), "early_stopping": goat.early_stopping_,
        "final_loss": goat.history_[-1]["loss"] if goat.history_ else None,
        "elapsed": time.perf_counter() - start, "device": str(goat.device_), "backend": goat.backend_,
        "params": goat.get_params(), "history": goat.history_,
        "tracked_pairs": [[h.source, h.target] for h in goat.tracked_],
    }, args.json)


def cmd_convert(args: argparse.Namespace) -> None:
    """A run of an older format (weights.pt) saved again in today's (model.safetensors), checked in full."""
    check_run_target(args.out, overwrite=args.overwrite)
    Goat.load(args.run_dir, device="cpu").save(args.out)
    emit({"run_dir": str(args.out), "from": str(args.run_dir)}, args.json)


def cmd_attention(args: argparse.Namespace) -> None:
    if args.top < 0:
        raise CliError(f"--top must be 0 (every neighbor) or a positive number of rows, got {args.top}")
    goat = Goat.load(args.run_dir, device=args.device)
    for note in goat.load_notes_:
        print(f"note: {args.run_dir}: {note}", file=sys.stderr)
    pair = goat.attention(args.source, args.target, mute=args.mute, uniform=args.uniform)
    tracked = goat.attention_history(args.source, args.target)
    result = pair.to_dict()
    if args.top:
        result["source_attention"] = result["source_attention"][: args.top]
        result["target_attention"] = result["target_attention"][: args.top]
    # the pair's attention after every epoch when it was tracked in training ([] when not)
    result["history"] = tracked.rows(args.top) if tracked is not None else []
    result["history_series"] = tracked.series() if tracked is not None else None
    if args.faithfulness or args.over_training:
        add_faithfulness(result, goat, args)
    if args.json:
        print(to_json(result))
        return
    what = " with uniform attention" if pair.uniform else ""
    muted = f", muted: {', '.join(pair.muted)}" if pair.muted else ""
    print(f"{pair.source} <-> {pair.target}: probability {pair.probability:.4f}{what}"
          f" ({'edge' if pair.is_edge else 'non-edge'}{muted})")
    for side in ("source", "target"):
        print(f"{result[side]}'s attention:")
        for row in result[f"{side}_attention"][:10]:
            print(f"  {row['weight']:.3f}  {row['node']}")
        if result[f"{side}_padding"] > 0.0:  # padding="zero": the pads' share, so that it sums to 1
            print(f"  {result[f'{side}_padding']:.3f}  (padding)")
    if tracked is not None:
        first, last = tracked.epochs[0], tracked.epochs[-1]
        print(f"over training (epoch {first} -> {last}): probability {tracked.probability[0]:.4f} -> "
              f"{tracked.probability[-1]:.4f}; attention entropy (1 = uniform) {pair.source} "
              f"{tracked.source_entropy[0]:.3f} -> {tracked.source_entropy[-1]:.3f}, {pair.target} "
              f"{tracked.target_entropy[0]:.3f} -> {tracked.target_entropy[-1]:.3f}")


def add_faithfulness(result: dict, goat: Goat, args: argparse.Namespace) -> None:
    """``--faithfulness``: each neighbor's weight against its leave-one-out effect (the model's own
    attention); ``--over-training``: its correlations after every epoch, replaying the training."""
    from .analysis.faithfulness import faithfulness, faithfulness_over_training

    result["faithfulness"] = faithfulness(goat, args.source, args.target).to_dict()
    if args.over_training:
        replay = faithfulness_over_training(goat, [(args.source, args.target)])
        result["faithfulness"]["history"] = replay["pairs"][0]["history"]
        result["faithfulness"]["same_model"] = replay["same_model"]
    if not args.json:
        f = result["faithfulness"]
        rho = "undefined" if f["spearman"] is None else f"{f['spearman']:.3f}"
        print(f"faithfulness: Spearman {rho} between attention and leave-one-out effect {f['note']}".rstrip())


def cmd_faithfulness(args: argparse.Namespace) -> None:
    """Faithfulness over a seeded sample of the run's edges (or non-edges): the distribution of the
    per-pair rank correlations between attention weights and leave-one-out effects."""
    from .analysis.faithfulness import faithfulness_sample

    goat = Goat.load(args.run_dir, device=args.device)
    result = faithfulness_sample(goat, count=args.pairs, seed=args.seed,
                                 kind="non-edges" if args.non_edges else "edges")
    if args.json:
        print(to_json(result))
        return
    for name in ("spearman", "kendall"):
        d = result[name]
        if d["defined"]:
            print(f"{name}: median {d['median']:.3f} (quartiles {d['q25']:.3f} to {d['q75']:.3f}) over "
                  f"{d['defined']} of {d['pairs']} pairs; positive in {100 * d['positive']:.0f} %")
        else:
            print(f"{name}: undefined for every one of the {d['pairs']} pairs")


def cmd_linkpred(args: argparse.Namespace) -> None:
    if args.ranking_per_positive < 0:
        raise CliError("--ranking-per-positive must be 0 (no ranking) or a positive number of negatives, got "
                       f"{args.ranking_per_positive}")
    goat = goat_from_args(args)  # the seed without --seed is the parameter's default, never None
    graph = load(args)
    split = split_edges(graph, args.train_ratio, goat.seed)
    start = time.perf_counter()
    goat.fit(split.train, callback=TerminalProgress())
    result = evaluate_link_prediction(goat, split)
    if args.ranking_per_positive:  # after the AUC: its numbers never depend on the ranking's draws
        from .analysis.ranking import evaluate_goat_ranking, ranking_negatives

        ranked = time.perf_counter()
        negatives = ranking_negatives(split, args.ranking_negatives, args.ranking_per_positive, goat.seed)
        result["ranking"] = {**evaluate_goat_ranking(goat, negatives),
                             "seconds": time.perf_counter() - ranked}
    result.update({"train_ratio": args.train_ratio, "seed": goat.seed, "variant": goat.variant,
                   "elapsed": time.perf_counter() - start, "params": goat.get_params(),
                   "epochs_trained": len(goat.history_), "early_stopping": goat.early_stopping_})
    emit(result, args.json)


def cmd_audit(args: argparse.Namespace) -> None:
    """One model, scored leak-free and as the paper did, leak by leak (:mod:`.audit`)."""
    from .analysis.audit import audit

    goat = goat_from_args(args)
    graph = load(args)
    result = audit(graph, args.train_ratio, goat.get_params(), callback=TerminalProgress())
    if args.json:
        emit(result, True)
        return
    print(f"leak-free AUC {result['leak_free']['auc']:.4f}, the paper's protocol "
          f"{result['paper_protocol']['auc']:.4f} (untrained: {result['untrained']['leak_free']['auc']:.4f}, "
          f"{result['untrained']['paper_protocol']['auc']:.4f})")
    for leak in result["leaks"]:
        auc = "n/a" if leak["auc"] is None else f"{leak['auc']:.4f}"
        print(f"  {leak['name']}: AUC {auc}")


def cmd_compare(args: argparse.Namespace) -> None:
    """GOAT's variants (and paddings) trained on the same split with the same settings and seed,
    compared edge by edge on the same held-out pairs (:mod:`.compare`)."""
    base = goat_from_args(args).get_params()  # variant and padding come from --variants / --padding
    graph = load(args)
    split = split_edges(graph, args.train_ratio, base["seed"])
    runs, about = {}, []
    for name, params in variant_params(base, args.variants, args.paddings).items():
        start = time.perf_counter()
        runs[name] = Goat(**params).fit(split.train, callback=TerminalProgress())
        about.append({"name": name, "variant": params["variant"], "padding": params["padding"],
                      "epochs_trained": len(runs[name].history_), "elapsed": time.perf_counter() - start})
    result = compare_runs(split, runs).to_dict()
    for row, extra in zip(result["runs"], about, strict=True):
        row.update(extra)
    result.update({"train_ratio": args.train_ratio, "seed": base["seed"],
                   "params": {k: v for k, v in base.items() if k not in ("variant", "padding")}})
    emit(result, args.json)


def cmd_cluster(args: argparse.Namespace) -> None:
    goat = goat_from_args(args)
    graph = load(args)
    if args.labels:
        labels = read_labels(args.labels, graph, args.encoding)
    elif graph.labels is not None:
        labels = graph.labels
    else:
        raise CliError(f"{args.graph}: no labels: pass --labels FILE ('node label' per line)")
    check_clustering_labels(labels)  # before training: scores that could mean nothing are refused
    split = split_edges(graph, args.train_ratio, goat.seed) if args.train_ratio < 1.0 else None
    start = time.perf_counter()
    goat.fit(split.train if split else graph, callback=TerminalProgress())
    ours = evaluate_clustering(goat.node_embeddings("context"), labels, goat.seed)
    glob = evaluate_clustering(goat.node_embeddings("global"), labels, goat.seed)
    emit({
        "nmi": ours["nmi"], "ami": ours["ami"], "global_nmi": glob["nmi"], "global_ami": glob["ami"],
        "k": ours["k"], "labelled_nodes": ours["labelled_nodes"], "embedding": "context",
        "train_ratio": args.train_ratio, "seed": goat.seed, "variant": goat.variant,
        "labels_notes": labels.notes(), "elapsed": time.perf_counter() - start,
        "params": goat.get_params(),
    }, args.json)


def cmd_tune(args: argparse.Namespace) -> None:
    """An Optuna study on a validation split of the training edges, then the best configuration
    retrained on every training edge and scored once on the test edges (:mod:`.tune`)."""
    from .tune import DEFAULT_STORAGE, narrow_space, tune_split

    if args.preset != "validated":
        raise CliError("tune searches the parameters: --preset does not apply (fix one with its option)")
    if args.out is not None:
        check_run_target(args.out, overwrite=args.overwrite)
    fixed = {name: getattr(args, name) for name in PARAMETERS if getattr(args, name) is not None}
    seed = fixed.pop("seed", PARAMETERS["seed"].default)
    fraction = fixed.pop("validation_fraction", PARAMETERS["validation_fraction"].default)
    space = narrow_space(args.space or [])
    beside = args.out.parent if args.out is not None else Path(".")
    storage = args.storage or f"sqlite:///{beside / DEFAULT_STORAGE}"
    graph = load(args)
    split = split_edges(graph, args.train_ratio, seed)
    result = tune_split(split, storage=storage, study=args.study, trials=args.trials, timeout=args.timeout,
                        sampler=args.sampler, seed=seed, space=space, base=fixed,
                        validation_fraction=fraction, callback=TerminalProgress(),
                        on_trial=None if args.json else _print_trial, default_first=not args.no_default_trial)
    found = result.to_dict()
    if args.out is not None:
        check_run_target(args.out, overwrite=args.overwrite)
        result.model.save(args.out, {"tune": {k: v for k, v in found.items() if k != "params"},
                                     "train_ratio": args.train_ratio})
        found["run_dir"] = str(args.out)
    emit(found, args.json)


def _print_trial(study, trial) -> None:
    value = "pruned" if trial.value is None else f"validation AUC {trial.value:.4f}"
    print(f"trial {trial.number}: {value} {trial.params}", file=sys.stderr, flush=True)


def add_command(sub: argparse._SubParsersAction, name: str, run: Callable[[argparse.Namespace], None],
                help: str, *operands: str, train_ratio: str | float | None = None) -> argparse.ArgumentParser:
    """A subcommand that runs ``run``: its operands, ``--train-ratio`` ("required", or its default) and
    ``--json``; the caller adds the options of its own."""
    p = sub.add_parser(name, help=help)
    for operand in operands:
        p.add_argument(operand)
    if train_ratio is not None:  # checked by main before the command runs; a default of 1 allows 1
        given = {"required": True} if train_ratio == "required" else {"default": train_ratio}
        p.add_argument("--train-ratio", type=float, help="fraction of edges to train on", **given)
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=run, train_on_every_edge=train_ratio == 1.0)
    return p


def add_graph_options(parser: argparse.ArgumentParser, leave_out: tuple[str, ...] = ()) -> None:
    """The options of a command that trains on GRAPH: training, then reading the file."""
    add_training_options(parser, leave_out)
    add_read_options(parser)


def add_tune_command(sub: argparse._SubParsersAction) -> None:
    from .tune import SAMPLERS

    p = add_command(sub, "tune", cmd_tune, "search GOAT's parameters on a validation split of the training "
                    "edges (Optuna), then score the best on the test edges", "graph", train_ratio="required")
    p.add_argument("--trials", type=int, default=20, help="trials this run adds to the study (default 20)")
    p.add_argument("--timeout", type=float, help="stop starting trials after this many seconds")
    p.add_argument("--sampler", choices=SAMPLERS, default="random",
                   help="random (default: the paper's random search) or tpe")
    p.add_argument("--space", action="append", metavar="NAME=LOW:HIGH",
                   help="narrow one parameter's declared range: NAME=LOW:HIGH or NAME=A,B (repeatable); "
                        "a training option given fixes its parameter instead")
    p.add_argument("--storage", help="Optuna storage: an SQLAlchemy URL (sqlite:///tune.db) or a journal "
                                     "file path (default: tune.db beside --out, else in this directory)")
    p.add_argument("--study", help="the study's name (default: from the training graph's content and seed); "
                                   "the same name again resumes it")
    p.add_argument("--no-default-trial", action="store_true",
                   help="a new study's first trial is Goat()'s defaults unless this is given")
    p.add_argument("--out", type=Path, help="also save the best model, retrained, as a run directory")
    p.add_argument("--overwrite", action="store_true", help="replace the GOAT run already in --out")
    add_graph_options(p)


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(prog="python -m goat_core", description=(
        "GOAT (Gossip and Attend): context-sensitive graph representation learning. "
        "GRAPH is a graph file (edge list or CSV, adjacency list, GEXF, GraphML, GML, Pajek, node-link JSON; "
        "gzip/bz2/xz/zip too) or a bundled name: " + ", ".join(BUNDLED)))
    parser.add_argument("--debug", action="store_true",
                        help="show the traceback of input errors too (bugs always show theirs)")
    sub = parser.add_subparsers(dest="command", required=True)
    device_help = "where to compute: 'auto', 'cpu', 'cuda' or 'cuda:N'"

    p = add_command(sub, "info", cmd_info, "describe a graph and how its file was read", "graph")
    p.add_argument("--directed", action="store_true", help="keep edge directions (default: as the file "
                                                           "declares; edge lists are undirected)")
    add_read_options(p)

    p = add_command(sub, "train", cmd_train, "train GOAT on every edge and save the run", "graph")
    p.add_argument("--out", required=True, help="run directory to write: new, empty, or a run to replace "
                                                   "with --overwrite (never a directory holding other files)")
    p.add_argument("--overwrite", action="store_true", help="replace the GOAT run already in --out")
    p.add_argument("--track-pair", nargs=2, action="append", metavar=("S", "T"), dest="track_pairs",
                   help="record this pair's attention (both sides) and probability after every epoch, "
                        "saved with the run (repeatable)")
    add_graph_options(p)

    p = add_command(sub, "convert", cmd_convert, "save a run of an older format (weights.pt) in today's "
                    "(safetensors)", "run_dir")
    p.add_argument("--out", required=True, help="the run directory to write (new, empty, or a run)")
    p.add_argument("--overwrite", action="store_true", help="replace the run in --out")

    p = add_command(sub, "attention", cmd_attention, "mutual attention of one pair from a saved run",
                    "run_dir", "source", "target")
    p.add_argument("--top", type=int, default=0, help="keep only the top K neighbors per side (0: all)")
    p.add_argument("--mute", action="append", metavar="NAME",
                   help="leave this neighbor out of the attention of each side holding it, a "
                        "counterfactual: the others share its attention (repeatable)")
    p.add_argument("--uniform", action="store_true",
                   help="uniform attention over the same neighbors (their mean) instead of the learned one")
    p.add_argument("--faithfulness", action="store_true",
                   help="add each neighbor's attention weight against its leave-one-out effect on the score "
                        "(muting it) and their rank correlations (Spearman, Kendall)")
    p.add_argument("--over-training", action="store_true",
                   help="with --faithfulness: its correlations after every epoch (replays the training)")
    p.add_argument("--device", default="cpu", help=device_help)

    p = add_command(sub, "faithfulness", cmd_faithfulness, "does attention explain the score, over a sample "
                    "of pairs", "run_dir")
    p.add_argument("--pairs", type=int, default=100, help="how many pairs to sample (default 100)")
    p.add_argument("--non-edges", action="store_true", help="sample non-edges instead of edges")
    p.add_argument("--seed", type=int, default=0, help="seed of the sample (default 0)")
    p.add_argument("--device", default="cpu", help=device_help)

    p = add_command(sub, "linkpred", cmd_linkpred, "leak-free link prediction: AUC and AP on held-out edges",
                    "graph", train_ratio="required")
    p.add_argument("--ranking-per-positive", type=int, default=DEFAULT_PER_POSITIVE, metavar="K",
                   help=f"rank each held-out edge against K negatives sharing a node with it: MRR and "
                        f"Hits@10/50/100 (default {DEFAULT_PER_POSITIVE}; 0: no ranking)")
    p.add_argument("--ranking-negatives", choices=RANKING_NEGATIVES, default="random",
                   help="random (default): drawn uniformly among the non-edges sharing a node with the edge; "
                        "hard: those scoring highest on resource allocation (HeaRT)")
    add_graph_options(p)

    p = add_command(sub, "audit", cmd_audit, "the leak audit: one model scored leak-free, as the paper did, "
                    "and leak by leak", "graph", train_ratio="required")
    add_graph_options(p)

    p = add_command(sub, "compare", cmd_compare, "variants trained on the same split: AUC/AP and per-edge "
                    "wins", "graph", train_ratio="required")
    p.add_argument("--variants", nargs="+", choices=VARIANTS, default=list(VARIANTS),
                   help="the variants to train (default: all)")
    p.add_argument("--padding", nargs="+", choices=PADDINGS, default=[PARAMETERS["padding"].default],
                   dest="paddings",
                   help="the paddings to train each variant with (GoatGlobal pads nothing: once)")
    add_graph_options(p, leave_out=("variant", "padding"))

    p = add_command(sub, "cluster", cmd_cluster, "k-means on node embeddings vs labels: NMI and AMI", "graph",
                    train_ratio=1.0)
    p.add_argument("--labels", help="'node label' file (email: its departments by default)")
    add_graph_options(p)

    add_tune_command(sub)
    return parser


def use_small_machine_threads() -> None:
    """One intra-op thread on a machine with at most two cores (see
    :func:`.training.small_machine_threads`): set once here, never by the library."""
    import torch

    threads = small_machine_threads()
    if threads is not None:
        torch.set_num_threads(threads)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    use_small_machine_threads()
    try:
        if getattr(args, "train_ratio", None) is not None:
            check_train_ratio(args.train_ratio, allow_one=args.train_on_every_edge)
        args.run(args)
        sys.stdout.flush()  # here, not at exit: a reader that stopped early is then caught below
    except GoatError as err:  # the user's input: one line; anything else is a bug, with its traceback
        if args.debug:
            raise
        message = str(err)
        print(f"error: {message.splitlines()[0] if message else type(err).__name__}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader stopped early (`... | head`): not an error of ours
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # so that Python's flush at exit does not raise again
        return 1
    return 0

