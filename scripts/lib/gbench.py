"""Reads a Google Benchmark JSON report written by scripts/lib/gbench.sh's gbench_run."""
import json


def medians(path):
    """The report's runs: medians when it repeated them, else the single runs."""
    runs = json.load(open(path))["benchmarks"]
    return [b for b in runs if b.get("aggregate_name") == "median"] or \
           [b for b in runs if b.get("run_type") == "iteration"]


def rate(v):
    """A per-second figure, short: 1.23M, 456.7k."""
    return "-" if v is None else (f"{v/1e6:.2f}M" if v >= 1e6 else f"{v/1e3:.1f}k")


def ratio(a, b):
    return "-" if a is None or not b else f"{a/b:.1f}x"
