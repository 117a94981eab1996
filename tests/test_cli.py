"""The CLI contract: verbs, flags, JSON keys, and one-line errors with exit status 2."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TENSORS = "model.safetensors"  # a run's tensors file
TRAIN = ["--epochs", "3", "--dim", "16", "--lr", "0.02", "--batch-size", "64", "--neighborhood", "10"]


def cli(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    proc = subprocess.run([sys.executable, "-m", "goat_core", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


def test_info_json():
    info = json.loads(cli("info", "lesmis", "--json").stdout)
    assert {"nodes": 77, "edges": 254, "directed": False, "weighted": True}.items() <= info.items()


def test_info_on_a_file_directed(tmp_path):
    path = tmp_path / "g.csv"
    path.write_text("source,target\nx,y\ny,x\ny,z\n")
    info = json.loads(cli("info", str(path), "--directed", "--json").stdout)
    assert (info["nodes"], info["edges"], info["directed"], info["weighted"]) == (3, 3, True, False)


def test_info_and_cluster_read_an_excel_csv_of_windows_with_encoding(tmp_path):
    graph, labels = tmp_path / "g.csv", tmp_path / "labels.txt"
    graph.write_bytes("source;target\nZoë;Müller\nMüller;René\nRené;Zoë\nRené;Åsa\n".encode("cp1252"))
    labels.write_bytes("Zoë a\nMüller a\nRené b\nÅsa b\n".encode("cp1252"))
    refused = cli("info", str(graph), check=False)
    assert refused.returncode == 2 and "--encoding cp1252" in refused.stderr
    info = json.loads(cli("info", str(graph), "--encoding", "cp1252", "--json").stdout)
    assert (info["nodes"], info["edges"]) == (4, 4) and "cp1252 text" in info["read"]["notes"]
    scores = json.loads(cli("cluster", str(graph), "--encoding", "cp1252", "--labels", str(labels),
                            "--epochs", "1", "--dim", "4", "--json").stdout)
    assert scores["labelled_nodes"] == 4


@pytest.mark.parametrize("content, expected", [
    ("a b\nb c\nc\n", "g.txt:3: only 1 column"),
    ("a b 1\nb c -1\n", "g.txt:2: weight -1 is not positive"),
    ("", "g.txt: the file is empty"),
])
def test_bad_input_is_one_line_exit_2(tmp_path, content, expected):
    path = tmp_path / "g.txt"
    path.write_text(content)
    proc = cli("info", str(path), "--json", check=False)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == f"error: {path.parent}/{expected}" + proc.stderr.split(expected, 1)[1]
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr


def test_missing_graph_and_bad_parameter_are_one_line_errors(tmp_path):
    proc = cli("info", str(tmp_path / "none.txt"), check=False)
    assert proc.returncode == 2 and proc.stderr.startswith("error: ") and proc.stderr.count("\n") == 1
    proc = cli("linkpred", "lesmis", "--train-ratio", "0.8", "--dim", "-3", "--json", check=False)
    assert proc.returncode == 2 and "dim must be an integer >= 1" in proc.stderr and "got -3" in proc.stderr


def test_train_then_attention(tmp_path):
    run = tmp_path / "run"
    summary = json.loads(cli("train", "lesmis", "--out", str(run), *TRAIN, "--seed", "3", "--json").stdout)
    assert summary["epochs"] == 3 and summary["params"]["seed"] == 3 and (run / "config.json").is_file()
    out = json.loads(cli("attention", str(run), "Marius", "Thenardier", "--json").stdout)
    assert {"source", "target", "probability", "source_attention", "target_attention"} <= out.keys()
    assert out["source"] == "Marius" and out["target"] == "Thenardier"
    assert abs(sum(row["weight"] for row in out["source_attention"]) - 1) < 1e-4
    assert all(set(row) == {"node", "weight"} for row in out["target_attention"])
    names = {row["node"] for row in out["source_attention"]}
    assert "Cosette" in names and "Thenardier" not in names  # Marius' neighbors, partner left out
    proc = cli("attention", str(run), "Marius", "Nobody", "--json", check=False)
    assert proc.returncode == 2 and "Nobody" in proc.stderr and proc.stderr.count("\n") == 1


def test_tracked_pairs_history_and_mutes(tmp_path):
    run = tmp_path / "run"
    summary = json.loads(cli("train", "lesmis", "--out", str(run), *TRAIN, "--track-pair", "Marius",
                             "Thenardier", "--track-pair", "Marius", "Gavroche", "--json").stdout)
    assert summary["tracked_pairs"] == [["Marius", "Thenardier"], ["Marius", "Gavroche"]]
    out = json.loads(cli("attention", str(run), "Marius", "Thenardier", "--json").stdout)
    history = out["history"]
    assert [row["epoch"] for row in history] == [0, 1, 2, 3]  # the untrained start, then every epoch
    assert all(set(row) == {"epoch", "source_attention", "target_attention", "probability"}
               for row in history)
    assert all(set(r) == {"node", "weight"}
               for row in history for r in row["source_attention"] + row["target_attention"])
    assert history[-1]["source_attention"] == out["source_attention"]  # the final model's attention
    assert history[-1]["target_attention"] == out["target_attention"]
    assert abs(history[-1]["probability"] - out["probability"]) < 1e-6
    assert len(out["history_series"]["source_entropy"]) == 4
    assert out["muted"] == [] and out["uniform"] is False
    swapped = json.loads(cli("attention", str(run), "Gavroche", "Marius", "--json", "--top", "2").stdout)
    assert len(swapped["history"]) == 4 and len(swapped["history"][0]["source_attention"]) == 2
    assert json.loads(cli("attention", str(run), "Valjean", "Javert", "--json").stdout)["history"] == []

    top = out["source_attention"][0]["node"]
    muted = json.loads(cli("attention", str(run), "Marius", "Thenardier", "--mute", top, "--mute", "Cosette",
                           "--json").stdout)
    assert muted["muted"] == [top, "Cosette"] and muted["probability"] != out["probability"]
    weights = {row["node"]: row["weight"] for row in muted["source_attention"]}
    assert weights[top] == 0.0 and abs(sum(weights.values()) - 1) < 1e-4
    uniform = json.loads(cli("attention", str(run), "Marius", "Thenardier", "--uniform", "--json").stdout)
    assert uniform["uniform"] is True and len({row["weight"] for row in uniform["source_attention"]}) == 1
    text = cli("attention", str(run), "Marius", "Thenardier", "--mute", top).stdout
    assert f"muted: {top}" in text and "over training (epoch 0 -> 3)" in text


@pytest.mark.parametrize("args, words", [
    (("attention", "RUN", "Marius", "Thenardier", "--mute", "Napoleon"),
     "Napoleon is not in the sampled neighborhood of Marius or Thenardier"),
    (("attention", "RUN", "Marius", "Thenardier", "--mute", "Nobody"), "'Nobody' is not in the graph"),
    (("train", "lesmis", "--out", "NEW", "--track-pair", "Marius", "Nobody"), "'Nobody' is not in the graph"),
    (("train", "lesmis", "--out", "NEW", "--track-pair", "Marius", "Marius"), "cannot gossip with itself"),
])
def test_tracking_and_muting_errors_are_one_line(tmp_path, args, words):
    run = tmp_path / "run"
    cli("train", "lesmis", "--out", str(run), *TRAIN)
    args = tuple(str(run) if a == "RUN" else str(tmp_path / "new") if a == "NEW" else a for a in args)
    proc = cli(*args, check=False)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert words in proc.stderr
    assert not (tmp_path / "new").exists()  # a bad tracked pair fails before training


def test_train_with_zero_padding_reports_the_pads_share(tmp_path):
    run = tmp_path / "run"
    cli("train", "lesmis", "--out", str(run), *TRAIN, "--neighborhood", "30", "--padding", "zero")
    assert json.loads((run / "config.json").read_text())["params"]["padding"] == "zero"
    out = json.loads(cli("attention", str(run), "Marius", "Thenardier", "--json").stdout)
    # N = 30 slots: Thenardier's 16 neighbors (Marius left out) and 15 zero pads
    total = sum(row["weight"] for row in out["target_attention"]) + out["target_padding"]
    assert abs(total - 1) < 1e-4 and out["target_padding"] > 0.0
    text = cli("attention", str(run), "Marius", "Thenardier").stdout
    assert "(padding)" in text


def test_linkpred_json():
    proc = cli("linkpred", "lesmis", "--train-ratio", "0.8", *TRAIN, "--seed", "1", "--json")
    out = json.loads(proc.stdout)
    assert {"auc", "ap", "train_ratio", "seed"} <= out.keys()
    assert out["train_ratio"] == 0.8 and out["seed"] == 1 and 0 <= out["auc"] <= 1
    assert out["params"]["inference_draws"] == 1


def test_linkpred_defaults_to_the_validated_preset_with_early_stopping():
    out = json.loads(cli("linkpred", "lesmis", "--train-ratio", "0.8", "--dim", "8", "--epochs", "6",
                         "--patience", "2", "--json").stdout)
    params, stop = out["params"], out["early_stopping"]
    assert (params["lr"], params["dropout"], params["padding"], params["validation_fraction"]) == (
        3e-3, 0.8, "zero", 0.2)
    assert 1 <= stop["best_epoch"] <= stop["epochs_tried"] <= 6
    assert out["epochs_trained"] == stop["best_epoch"]


def test_preset_paper_is_table_2_literally_and_options_still_win():
    out = json.loads(cli("linkpred", "email", "--train-ratio", "0.95", "--preset", "paper", "--epochs", "1",
                         "--dim", "8", "--json").stdout)
    params = out["params"]
    assert (params["lr"], params["dropout"], params["neighborhood"], params["padding"]) == (
        1e-4, 0.8, 100, "zero")  # Table 2's Email row
    assert params["validation_fraction"] == 0.0 and out["early_stopping"] is None
    assert (params["epochs"], params["dim"]) == (1, 8) and out["epochs_trained"] == 1
    proc = cli("linkpred", "lesmis", "--train-ratio", "0.8", "--preset", "table2", check=False)
    assert proc.returncode == 2 and "invalid choice: 'table2'" in proc.stderr


def test_linkpred_without_seed_splits_the_same_way_twice():
    args = ("linkpred", "lesmis", "--train-ratio", "0.8", *TRAIN, "--validation-fraction", "0", "--json")
    assert json.loads(cli(*args).stdout)["auc"] == json.loads(cli(*args).stdout)["auc"]


def test_linkpred_averages_inference_draws_when_asked():
    args = ("linkpred", "lesmis", "--train-ratio", "0.8", *TRAIN, "--neighborhood", "2", "--json")
    one = json.loads(cli(*args).stdout)
    three = json.loads(cli(*args, "--inference-draws", "3").stdout)
    assert three["params"]["inference_draws"] == 3 and three["auc"] != one["auc"]


def test_cluster_json_with_labels_file(tmp_path):
    labels = tmp_path / "labels.txt"
    labels.write_text("".join(f"{name} {'a' if i < 40 else 'b'}\n"
                              for i, name in enumerate(__import__("goat_core").load_graph("lesmis").names)))
    out = json.loads(cli("cluster", "lesmis", "--labels", str(labels), "--train-ratio", "0.9", *TRAIN,
                         "--json").stdout)
    assert {"nmi", "ami"} <= out.keys() and out["k"] == 2


def test_cluster_email_defaults_to_departments(data_dir):
    out = json.loads(cli("cluster", "email", "--train-ratio", "0.95", "--epochs", "1", "--dim", "8",
                         "--neighborhood", "10", "--batch-size", "512", "--json").stdout)
    assert out["k"] == 42 and out["labelled_nodes"] == 1005


def test_every_parameter_is_an_option_with_its_default():
    from goat_core import PARAMETERS
    from goat_core.cli import INVERTED_FLAGS

    usage = cli("train", "--help").stdout
    for name in PARAMETERS:
        flag = INVERTED_FLAGS[name][0] if name in INVERTED_FLAGS else "--" + name.replace("_", "-")
        assert flag in usage, flag
    assert "--backend {auto,fused,torch,module}" in usage


def test_format_help_names_every_alias_with_its_format(monkeypatch):
    import argparse

    from goat_core.cli import add_read_options
    from goat_core.data.formats import FORMAT_ALIASES

    monkeypatch.setenv("COLUMNS", "10000")  # argparse wraps help to it: one line, no "matrix-\nmarket"
    parser = argparse.ArgumentParser()
    add_read_options(parser)
    usage = parser.format_help()
    for alias, name in FORMAT_ALIASES.items():
        together = [a for a, n in FORMAT_ALIASES.items() if n == name]
        assert (f"{'/'.join(together)} = {name}" if name else f"{alias} = detect") in usage, alias


def test_out_naming_a_file_fails_before_training(tmp_path):
    taken = tmp_path / "taken.txt"
    taken.write_text("mine")
    proc = cli("train", "lesmis", "--out", str(taken), "--epochs", "500", check=False)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1
    assert f"error: {taken}: exists and is not a directory" in proc.stderr
    assert taken.read_text() == "mine"


def test_a_run_whose_config_is_a_list_is_one_line(tmp_path):
    run = tmp_path / "run"
    cli("train", "lesmis", "--out", str(run), *TRAIN)
    (run / "config.json").write_text("[]")
    proc = cli("attention", str(run), "Marius", "Thenardier", check=False)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1
    assert "must each hold a JSON object" in proc.stderr


def test_debug_shows_the_traceback_of_an_input_error():
    proc = cli("--debug", "info", "no-such-graph.txt", check=False)
    assert proc.returncode == 1 and "Traceback" in proc.stderr and "GraphFormatError" in proc.stderr
    quiet = cli("info", "no-such-graph.txt", check=False)
    assert quiet.returncode == 2 and "Traceback" not in quiet.stderr


def test_a_bug_is_not_hidden_as_an_input_error(monkeypatch, capsys):
    """Only the project's own errors become one-line messages; anything else keeps its traceback."""
    from goat_core import cli as cli_module

    def broken(args):
        raise KeyError("a bug, not the user's input")

    parser = cli_module.build_parser
    monkeypatch.setattr(cli_module, "build_parser", lambda: _with_command(parser(), broken))
    with pytest.raises(KeyError):
        cli_module.main(["info", "lesmis"])


def _with_command(parser, run):
    parser.set_defaults(run=run)
    for action in parser._subparsers._group_actions:
        for sub in action.choices.values():
            sub.set_defaults(run=run)
    return parser


def test_train_with_zero_epochs_saves_the_untrained_reference(tmp_path):
    """epochs=0 is a valid parameter (the untrained reference); its empty history once crashed."""
    out = json.loads(cli("train", "lesmis", "--out", str(tmp_path / "run"), "--epochs", "0", "--dim", "8",
                         "--json").stdout)
    assert out["final_loss"] is None and out["history"] == []


def test_info_says_how_a_file_was_read(tmp_path):
    """Gephi's edge table: columns by name, the others named as ignored, the first rows as read."""
    path = tmp_path / "edges.csv"
    path.write_text("Source,Target,Type,Id,Label,Weight\nann,bob,Undirected,0,,2\nbob,cat,Undirected,1,,1.5\n")
    info = json.loads(cli("info", str(path), "--json").stdout)
    read = info["read"]
    assert (info["nodes"], info["edges"], info["weighted"]) == (3, 2, True)
    assert read["format"] == "edgelist" and read["columns"] == {"source": "'Source'", "target": "'Target'",
                                                                 "weight": "'Weight'"}
    assert read["ignored"] == ["'Type'", "'Id'", "'Label'"] and read["first_rows"] == [["ann", "bob", "2"],
                                                                                       ["bob", "cat", "1.5"]]
    text = cli("info", str(path)).stdout
    assert "read: 2 edges read as edge list from 'Source' → 'Target', weight from 'Weight'" in text


def test_read_flags_choose_columns_and_format(tmp_path):
    path = tmp_path / "rows.csv"
    path.write_text("0,5,7\n1,5,9\n2,7,9\n")  # pandas' to_csv(header=False): a row index first
    proc = cli("info", str(path), "--json", check=False)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "--source 1 --target 2" in proc.stderr
    info = json.loads(cli("info", str(path), "--source", "1", "--target", "2", "--json").stdout)
    assert (info["nodes"], info["edges"], info["weighted"]) == (3, 3, False)
    assert info["read"]["positions"] == [1, 2, None]
    adj = tmp_path / "adj.txt"
    adj.write_text("a b c\nb c\nc\n")
    assert json.loads(cli("info", str(adj), "--format", "adjlist", "--json").stdout)["edges"] == 3
    named = tmp_path / "named.csv"
    named.write_text("who,whom,score\na,b,3\nb,c,4\n")
    info = json.loads(cli("info", str(named), "--weight", "score", "--json").stdout)
    assert info["weighted"] and info["read"]["columns"]["weight"] == "'score'"
    proc = cli("info", "lesmis", "--format", "gml", check=False)
    assert proc.returncode == 2 and "not to the bundled graph" in proc.stderr


# --------------------------------------------------------------------------- issue 24: every answer trusted
# In-process (``main``) where a subprocess would only add start-up time; training is refused by a
# stub wherever a check must come before any work.

INTS = "10 20\n20 30\n30 40\n40 10\n10 30\n"  # nodes named 10, 20, 30, 40 (indices 0..3)
TINY = ["--dim", "8", "--epochs", "2", "--neighborhood", "4", "--validation-fraction", "0",
        "--batch-size", "8"]


def run_main(capsys, *args: str) -> tuple[int, str, str]:
    from goat_core.cli import main

    try:
        code = main(list(args))
    except SystemExit as stop:  # argparse's own exit
        code = stop.code
    out = capsys.readouterr()
    return code, out.out, out.err


def one_line_error(code: int, err: str) -> str:
    assert code == 2 and err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err, err
    return err


GEPHI_EXPORTS = {  # one graph (a-b weighing 2, b-c, c-d; club x or y) as Gephi exports it
    "gdf": b"nodedef> name VARCHAR,label VARCHAR,x DOUBLE,y DOUBLE,color VARCHAR,club VARCHAR\n"
           b"a,\"a\",1.5,-2.0,'153,153,153',\"x\"\nb,\"b\",0.5,3.0,'153,153,153',\"x\"\n"
           b"c,\"c\",2.5,1.0,'153,153,153',\"y\"\nd,\"d\",-1.0,0.0,'153,153,153',\"y\"\n"
           b"edgedef> node1,node2,weight DOUBLE,directed BOOLEAN\n"
           b"a,b,2.0,false\nb,c,1.0,false\nc,d,1.0,false\n",
    "vna": b"*Node data\nID club\na x\nb x\nc y\nd y\n*Node properties\nID x y size color shortlabel\n"
           b"a 1.5 -2.0 10.0 153 a\nb 0.5 3.0 10.0 153 b\nc 2.5 1.0 10.0 153 c\nd -1.0 0.0 10.0 153 d\n"
           b"*Tie data\nfrom to strength\na b 2.0\nb a 2.0\nb c 1.0\nc b 1.0\nc d 1.0\nd c 1.0\n",
    "dl": b"dl\nformat = edgelist1\nn = 4\nlabels embedded:\ndata:\na b 2.0\nb a 2.0\nb c 1.0\nc b 1.0\n"
          b"c d 1.0\nd c 1.0\n",
}


@pytest.mark.parametrize("fmt", list(GEPHI_EXPORTS))
def test_info_reads_gephi_export_formats(capsys, tmp_path, fmt):
    path = tmp_path / f"export.{fmt}"
    path.write_bytes(GEPHI_EXPORTS[fmt])
    code, out, _ = run_main(capsys, "info", str(path), "--json")
    info = json.loads(out)
    assert code == 0 and info["read"]["format"] == fmt and not info["directed"] and info["weighted"]
    assert (info["nodes"], info["edges"]) == (4, 3)
    assert info["read"]["labels_from"] == ("'club'" if fmt != "dl" else None)


@pytest.mark.parametrize("fmt", ["sif", "xgmml"])
def test_info_reads_cytoscape_formats(capsys, tmp_path, fmt):
    import networkx as nx

    from .data.test_sif import cytoscape_sif
    from .data.test_xgmml import cytoscape_xgmml

    g = nx.karate_club_graph()
    path = tmp_path / f"karate.{fmt}"
    path.write_bytes(cytoscape_sif(g) if fmt == "sif" else cytoscape_xgmml(g))
    code, out, _ = run_main(capsys, "info", str(path), "--json")
    info = json.loads(out)
    assert code == 0 and info["read"]["format"] == fmt and not info["directed"]
    assert (info["nodes"], info["edges"], info["weighted"]) == (34, 78, fmt == "xgmml")
    assert info["read"]["labels_from"] == ("'club'" if fmt == "xgmml" else None)
    path.write_bytes(b"a pp b\nb pp\n")
    err = one_line_error(*run_main(capsys, "info", str(path), "--format", fmt)[::2])
    words = "2 fields ('b', 'pp')" if fmt == "sif" else "malformed XML"
    assert err.startswith(f"error: {path}:{1 if fmt == 'xgmml' else 2}: {words}"), err


@pytest.mark.parametrize("fmt, old, new, line, words", [
    ("gdf", b"a,b,2.0", b"a,b,heavy", 7, "weight 'heavy' is not a number"),
    ("vna", b"\nc d 1.0", b"\nc d", 19, "2 values, the *Tie Data header names 3"),
    ("dl", b"d c 1.0", b"d e 1.0", 11, "label 'e' is node 5, n = 4"),
])
def test_a_bad_gephi_export_format_is_one_line(capsys, tmp_path, fmt, old, new, line, words):
    path = tmp_path / f"bad.{fmt}"
    path.write_bytes(GEPHI_EXPORTS[fmt].replace(old, new))
    err = one_line_error(*run_main(capsys, "info", str(path))[::2])
    assert err.startswith(f"error: {path}:{line}: {words}"), err


@pytest.fixture
def no_work(monkeypatch):
    """Training or splitting now is a failure: the checks must come first."""
    from goat_core import cli as cli_module

    def refuse(*args, **kwargs):
        raise AssertionError("work started before the parameters were checked")
    monkeypatch.setattr(cli_module.Goat, "fit", refuse)
    monkeypatch.setattr(cli_module, "split_edges", refuse)


@pytest.fixture(scope="module")
def ints_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("ints")
    (folder / "ints.txt").write_text(INTS)
    from goat_core import Goat
    from goat_core.data.readers import read_graph_file

    Goat(dim=8, epochs=2, neighborhood=4, validation_fraction=0.0, batch_size=8).fit(
        read_graph_file(folder / "ints.txt"), track_pairs=[("10", "20")]).save(folder / "run")
    return folder


@pytest.mark.parametrize("args, words", [
    (("1", "2"), "node '1' is not in the graph"),  # once answered for 20 and 30 (indices 1 and 2)
    (("10", "20", "--mute", "3"), "node '3' is not in the graph"),  # once muted 40 (index 3)
    (("10", "20", "--top", "-1"), "--top must be 0 (every neighbor) or a positive number"),
    (("10", "20", "--device", "mps"), "device must be 'auto', 'cpu', 'cuda' or 'cuda:N', got 'mps'"),
    (("10", "20", "--device", "meta"), "got 'meta'"),
])
def test_attention_names_are_names_and_bad_options_are_one_line(capsys, ints_run, args, words):
    code, out, err = run_main(capsys, "attention", str(ints_run / "run"), *args, "--json")
    assert words in one_line_error(code, err) and out == ""


def test_attention_by_name_on_integer_names_and_a_device_this_machine_lacks(capsys, ints_run):
    import torch

    code, out, err = run_main(capsys, "attention", str(ints_run / "run"), "20", "30", "--json")
    assert code == 0 and json.loads(out)["source"] == "20" and json.loads(out)["target"] == "30"
    if not torch.cuda.is_available():
        code, out, err = run_main(capsys, "attention", str(ints_run / "run"), "20", "30", "--device", "cuda")
        assert "no CUDA GPU" in one_line_error(code, err) and str(ints_run) not in err  # the device's fault


def test_track_pair_names_are_names(capsys, ints_run, tmp_path):
    code, _, err = run_main(capsys, "train", str(ints_run / "ints.txt"), "--out", str(tmp_path / "new"),
                            *TINY, "--track-pair", "1", "2")  # once tracked 20 and 30 (indices 1 and 2)
    assert "node '1' is not in the graph" in one_line_error(code, err)
    assert not (tmp_path / "new").exists()


@pytest.mark.parametrize("command", [
    ("linkpred", "lesmis", "--train-ratio", "0.8"),
    ("compare", "lesmis", "--train-ratio", "0.8"),
    ("cluster", "lesmis", "--train-ratio", "0.8"),
    ("train", "lesmis", "--out", "NEW"),
])
@pytest.mark.parametrize("option, words", [
    (("--seed", "-1"), "seed must be an integer >= 0"),
    (("--device", "mps"), "device must be 'auto', 'cpu', 'cuda' or 'cuda:N', got 'mps'"),
    (("--batch-size", str(10**30)), "batch_size must be an integer >= 1 and <= "),  # once an OverflowError
    (("--epochs", str(10**30)), "epochs must be an integer >= 0 and <= "),  # once a training without end
])
def test_parameters_are_checked_before_any_split_or_training(capsys, no_work, tmp_path, command, option,
                                                             words):
    args = [str(tmp_path / "new") if a == "NEW" else a for a in command]
    code, _, err = run_main(capsys, *args, *option)
    assert words in one_line_error(code, err)
    assert not (tmp_path / "new").exists()


@pytest.mark.parametrize("command, ratio, words", [
    ("cluster", "2", "--train-ratio must be a number in (0, 1]"),
    ("cluster", "inf", "got inf"),
    ("cluster", "nan", "got nan"),
    ("cluster", "0", "got 0.0"),
    ("linkpred", "1", "--train-ratio must be a number in (0, 1)"),
    ("compare", "-0.5", "--train-ratio must be a number in (0, 1)"),
])
def test_train_ratio_outside_its_range_is_refused(capsys, no_work, command, ratio, words):
    code, out, err = run_main(capsys, command, "lesmis", "--train-ratio", ratio, "--json")
    assert words in one_line_error(code, err) and out == ""


@pytest.mark.parametrize("labels, words", [
    ("Marius a\nCosette a\nValjean a\n", "3 labelled node(s) in 1 class(es): clustering scores need"),
    ("Marius a\n", "1 labelled node(s) in 1 class(es)"),
    ("Marius a\nCosette b\nValjean c\n", "3 classes for 3 labelled nodes"),
])
def test_labels_whose_scores_would_mean_nothing_are_refused_before_training(capsys, no_work, tmp_path, labels,
                                                                            words):
    path = tmp_path / "labels.txt"
    path.write_text(labels)
    code, out, err = run_main(capsys, "cluster", "lesmis", "--labels", str(path), "--json")
    assert words in one_line_error(code, err) and out == ""


def test_a_path_too_long_for_the_file_system_is_one_line(capsys, no_work, tmp_path):
    """A graph or labels path past the file system's 255-byte name was an OSError's traceback; a device
    is refused before it is read."""
    long = str(tmp_path / ("a" * 300 + ".txt"))
    code, out, err = run_main(capsys, "info", long)
    assert "cannot be read (File name too long)" in one_line_error(code, err)
    code, out, err = run_main(capsys, "cluster", "lesmis", "--labels", long, "--json")
    assert "cannot be read (File name too long)" in one_line_error(code, err) and out == ""
    for command in (["info", "/dev/zero"], ["cluster", "lesmis", "--labels", "/dev/zero", "--json"]):
        code, out, err = run_main(capsys, *command)  # never read: a device that never ends
        assert "/dev/zero: is not a regular file (a device or a pipe)" in one_line_error(code, err)


def test_ranking_against_more_negatives_than_exist_is_not_a_memory_error(capsys):
    code, out, err = run_main(capsys, "linkpred", "lesmis", "--train-ratio", "0.8", "--epochs", "1",
                              "--dim", "8", "--neighborhood", "4",
                              "--ranking-per-positive", "999999999999", "--json")
    assert code == 0 and json.loads(out)["ranking"]["per_positive"] == 999999999999


def test_json_output_is_strict():
    from goat_core.cli import to_json

    with pytest.raises(ValueError):
        to_json({"nmi": float("nan")})
    assert to_json({"nmi": 0.5}) == '{"nmi": 0.5}'


def test_out_must_be_new_empty_or_a_run_checked_before_training(capsys, no_work, tmp_path, ints_run):
    graph = str(ints_run / "ints.txt")
    (tmp_path / "afile").write_text("mine")
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "config.json").write_text('{"mine": true}')
    (mine / "nodes.json").write_text("[]")
    other = tmp_path / "other"
    shutil.copytree(ints_run / "run", other)
    (other / "notes.txt").write_text("mine")
    for out, words in [("", "--out: names no directory"),
                       (str(tmp_path / "afile" / "sub"), "is a file, not a directory"),
                       (str(tmp_path / "afile"), "exists and is not a directory"),
                       (str(mine), "that is not a GOAT run's"),
                       (str(other), "holds other files ('notes.txt')"),
                       (str(ints_run / "run"), "already holds a GOAT run: pass --overwrite")]:
        code, _, err = run_main(capsys, "train", graph, "--out", out, *TINY)
        assert words in one_line_error(code, err), (out, err)
    code, _, err = run_main(capsys, "train", graph, "--out", str(other), "--overwrite", *TINY)
    assert "holds other files" in one_line_error(code, err)  # --overwrite replaces a run, nothing else
    assert (mine / "config.json").read_text() == '{"mine": true}'
    assert (tmp_path / "afile").read_text() == "mine"


def test_overwrite_replaces_a_run(capsys, tmp_path, ints_run):
    run = tmp_path / "run"
    shutil.copytree(ints_run / "run", run)
    code, out, err = run_main(capsys, "train", str(ints_run / "ints.txt"), "--out", str(run), "--overwrite",
                              *TINY, "--seed", "5", "--json")
    assert code == 0 and json.loads((run / "config.json").read_text())["params"]["seed"] == 5


@pytest.mark.parametrize("change, words", [
    (lambda run: (run / TENSORS).write_bytes(b""), f"{TENSORS}: is empty"),
    (lambda run: (run / TENSORS).write_text("not tensors"), f"{TENSORS}: was changed after"),
    (lambda run: ((run / TENSORS).rename(run.parent / "w"), (run / TENSORS).symlink_to(run.parent / "w")),
     f"{TENSORS}: is a symbolic link"),
    (lambda run: (run / "config.json").write_text(json.dumps({**json.loads((run / "config.json").read_text()),
                                                              "extra_key": 1})),
     "config.json: was changed after the run was saved"),
])
def test_a_broken_run_is_one_line_in_the_cli(capsys, tmp_path, ints_run, change, words):
    run = tmp_path / "run"
    shutil.copytree(ints_run / "run", run)
    change(run)
    code, out, err = run_main(capsys, "attention", str(run), "10", "20", "--json")
    assert words in one_line_error(code, err) and f"error: {run}" in err


def test_convert_saves_a_run_of_format_2_in_format_3_with_the_same_answers(capsys, tmp_path):
    from .test_persistence import FORMAT_2_RUN

    code, out, err = run_main(capsys, "convert", str(FORMAT_2_RUN), "--out", str(tmp_path / "new"), "--json")
    assert code == 0 and json.loads(out)["run_dir"] == str(tmp_path / "new")
    assert sorted(p.name for p in (tmp_path / "new").iterdir()) == ["config.json", TENSORS, "nodes.json"]
    answers = [run_main(capsys, "attention", str(run), "Marius", "Thenardier", "--json")[1]
               for run in (FORMAT_2_RUN, tmp_path / "new")]
    assert answers[0] == answers[1] and json.loads(answers[0])["source"] == "Marius"
    code, _, err = run_main(capsys, "convert", str(tmp_path / "none"), "--out", str(tmp_path / "x"))
    assert "not a GOAT run directory: no such directory" in one_line_error(code, err)


def test_usage_errors_are_one_line(capsys):
    code, _, err = run_main(capsys, "train", "lesmis", "--out", "x", "--dim", "big")
    assert "argument --dim: invalid int value: 'big'" in one_line_error(code, err)
    code, _, err = run_main(capsys, "attention")
    assert "required" in one_line_error(code, err)


def test_a_format_1_run_says_so_on_stderr(capsys, tmp_path, ints_run):
    from .tamper import as_format_1, tampered

    run = tampered(ints_run / "run", tmp_path / "run", as_format_1)
    code, out, err = run_main(capsys, "attention", str(run), "10", "20", "--json")
    assert code == 0 and json.loads(out)["source"] == "10"
    assert err.startswith("note: ") and "format 1" in err and err.count("\n") == 1


def test_an_out_name_too_long_is_one_line_before_training(capsys, no_work, tmp_path):
    code, _, err = run_main(capsys, "train", "lesmis", "--out", str(tmp_path / ("x" * 300)), *TINY)
    assert "cannot be used as a run directory (File name too long)" in one_line_error(code, err)


def test_an_out_name_holding_a_nul_is_one_line_before_training(capsys, no_work, tmp_path):
    """Issue 24's second sweep: a NUL in --out was a ValueError traceback."""
    code, _, err = run_main(capsys, "train", "lesmis", "--out", str(tmp_path / "a\x00b"), *TINY)
    assert "holds a NUL character, which no file name may hold" in one_line_error(code, err)


def test_a_reader_that_stops_early_gets_no_traceback():
    """`python -m goat_core info ... | head -1`: the reader closes the pipe before the output is
    written; the CLI ends quietly (status 1) instead of printing a BrokenPipeError traceback."""
    proc = subprocess.Popen([sys.executable, "-m", "goat_core", "info", "lesmis"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=Path(__file__).resolve().parents[1])
    proc.stdout.close()  # the reader is gone before the first byte
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 1, err
    assert b"Traceback" not in err and b"BrokenPipeError" not in err, err
