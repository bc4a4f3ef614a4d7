"""Measure once the compute time of a full run of every chapter and store it in course/plan.yml.

Each chapter runs top to bottom in a fresh kernel (``jupyter nbconvert --execute`` into a temporary
file, the notebook itself untouched). Stored per chapter: the CPU seconds of that run (nbconvert and
its kernel; what a run costs on an idle core, whatever else the machine is doing) and the wall-clock
seconds, with a description of the machine (CPU model, cores, load average at the start), in the
``run_times`` entries of ``course/plan.yml``. The book build only reads these numbers.

Usage: python course/measure_run_times.py   (about 5 minutes on 2 cores)
"""
from __future__ import annotations

import os
import platform
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "book" / "_ext"))
from exercises import chapter_notebooks  # noqa: E402

PLAN = ROOT / "course" / "plan.yml"


def machine() -> str:
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor() or "unknown CPU")
    load = os.getloadavg()[0]
    return f"{cpu}, {os.cpu_count()} cores, load average {load:.1f} at the start, {time.strftime('%Y-%m-%d')}"


def main() -> None:
    where = machine()
    jupyter = Path(sys.executable).parent / "jupyter"
    env = dict(os.environ, PYTHONPATH=str(ROOT), MPLBACKEND="Agg")
    seconds, wall = {}, {}
    with tempfile.TemporaryDirectory() as tmp:
        for nb in chapter_notebooks(ROOT):
            start, cpu = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
            subprocess.run([str(jupyter), "nbconvert", "--to", "notebook", "--execute", "--output-dir", tmp,
                            "--ExecutePreprocessor.timeout=1200", str(nb)], check=True, env=env,
                           capture_output=True)
            used = resource.getrusage(resource.RUSAGE_CHILDREN)
            seconds[nb.stem] = round(used.ru_utime + used.ru_stime - cpu.ru_utime - cpu.ru_stime)
            wall[nb.stem] = round(time.perf_counter() - start)
            print(f"{nb.stem}: {seconds[nb.stem]} s CPU, {wall[nb.stem]} s wall", flush=True)
    text = PLAN.read_text(encoding="utf-8")
    text = re.sub(r"^  machine: .*$", f"  machine: \"{where}\"", text, count=1, flags=re.M)
    text = re.sub(r"^  seconds: .*$", "  seconds: {" + ", ".join(f"{k}: {v}" for k, v in seconds.items()) + "}",
                  text, count=1, flags=re.M)
    text = re.sub(r"^  wall_seconds: .*$", "  wall_seconds: {" + ", ".join(f"{k}: {v}" for k, v in wall.items()) + "}",
                  text, count=1, flags=re.M)
    PLAN.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
