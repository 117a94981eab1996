"""Thread settings next to other busy processes: intra-op threads, wait policy, chunk workers.

    python bench/threads.py              # as the machine is
    python bench/threads.py --busy 2     # next to two processes spinning at 100 % (a stand-in for
                                         # a Streamlit server and a browser, or other jobs)

Runs ``bench/throughput.py`` (our trainer only, Email paper config) in a fresh process per
setting, since the OpenMP wait policy is read once when the runtime loads. On a 2-core machine
shared with a Streamlit server (and here, other jobs), two threads that spin-wait at every
parallel region's barrier lose their time slices to the other processes.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SETTINGS = [  # (label, throughput.py options)
    ("library default: 1 torch thread in the loop, 2 segment workers", []),
    ("1 torch thread, segments in order on one thread", ["--threads", "1", "--workers", "1"]),
    ("2 OpenMP threads (PASSIVE wait), segments in order", ["--threads", "2", "--workers", "1"]),
    ("2 OpenMP threads (default spin), segments in order", ["--threads", "2", "--workers", "1", "--spin"]),
]
SPIN = "while True: pass"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--busy", type=int, default=0, help="CPU-bound processes to run alongside")
    args = parser.parse_args()
    burners = [subprocess.Popen([sys.executable, "-c", SPIN]) for _ in range(args.busy)]
    try:
        results = measure()
    finally:
        for p in burners:
            p.kill()
    print(json.dumps({"busy_processes": args.busy, "results": results}))


def measure() -> dict:
    results = {}
    for label, options in SETTINGS:
        env = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "OMP_NUM_THREADS")}
        cmd = [sys.executable, str(HERE / "throughput.py"), "--json", "--naive-pairs", "0", "--repeats", "2",
               *options]
        done = subprocess.run(cmd, env=env, capture_output=True, text=True)
        if done.returncode != 0:
            print(f"{label}: failed\n{done.stderr[-1500:]}")
            continue
        row = json.loads(done.stdout.strip().splitlines()[-1])
        results[label] = {"pairs_per_s": row["pairs_per_s"], "epoch_s": row["epoch_s"],
                          "pairs_per_cpu_s": row["pairs_per_cpu_s"],
                          "loadavg_1m": row["machine"]["loadavg_1m"]}
        print(f"{label:64s} {row['pairs_per_s']:8.0f} pairs/s  ({row['epoch_s']:.2f} s/epoch, load "
              f"{row['machine']['loadavg_1m']})", flush=True)
    return results


if __name__ == "__main__":
    main()
