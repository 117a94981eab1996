"""Write RESULTS.md from the committed files under results/ (no training, no data set needed).

    python -m reproduce.report                    # rewrite RESULTS.md
    python -m reproduce.report --check            # exit 1 if RESULTS.md is not what the files give
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..common import ROOT
from .document import render


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m reproduce.report", description=__doc__.splitlines()[0])
    ap.add_argument("--results", type=Path, default=ROOT / "results", help="the folder of result files")
    ap.add_argument("--out", type=Path, default=ROOT / "RESULTS.md", help="the document to write")
    ap.add_argument("--check", action="store_true", help="compare instead of writing")
    args = ap.parse_args(argv)
    text = render(args.results)
    if args.check:
        same = args.out.exists() and args.out.read_text() == text
        verdict = "up to date" if same else f"differs from what the files under {args.results} give"
        print(f"{args.out}: {verdict}")
        return 0 if same else 1
    args.out.write_text(text)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
