"""Thread settings next to other busy processes: intra-op threads, wait policy, chunk workers.

    python bench/threads.py

Runs ``bench/throughput.py`` (our trainer only, Email paper config) in a fresh process per
setting, since the OpenMP wait policy is read once when the runtime loads. On a 2-core machine
shared with a Streamlit server (and here, other jobs), two threads that spin-wait at every
parallel region's barrier lose their time slices to the other processes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SETTINGS = [  # (label, throughput.py options)
    ("library default: 1 thread in the loop, 2 chunk workers", []),
    ("1 intra-op thread, chunks in order", ["--threads", "1", "--workers", "1"]),
    ("2 OpenMP threads (PASSIVE wait), chunks in order", ["--threads", "2", "--workers", "1"]),
    ("2 OpenMP threads (default spin), chunks in order", ["--threads", "2", "--workers", "1", "--spin"]),
]


def main() -> None:
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
        print(f"{label:58s} {row['pairs_per_s']:8.0f} pairs/s  ({row['epoch_s']:.2f} s/epoch, load "
              f"{row['machine']['loadavg_1m']})", flush=True)
    print(json.dumps(results))


if __name__ == "__main__":
    main()
