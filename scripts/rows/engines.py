#!/usr/bin/env python3
"""Reads the tables `cctool scan --rows … --out-dir DIR/<table>` wrote, with one engine, the
way docs/tables.md shows, and prints the counts and sums cctool's own `scan --json` total
gives, as one JSON object. The test `rows_engines` compares the two.

usage: engines.py duckdb|polars jsonl|parquet DIR
"""
import json
import sys


def duckdb_counts(fmt, root):
    import duckdb

    def table(name):
        if fmt == "jsonl":
            return f"read_json('{root}/{name}/**/*.jsonl.zst', hive_partitioning = true)"
        return f"read_parquet('{root}/{name}/**/*.parquet', hive_partitioning = true)"

    def one(sql):
        return duckdb.sql(sql).fetchall()[0]

    files, chain, comps, tokens = one(
        f"select count(*), sum(chain_messages), sum(compactions), sum(resume_tokens) from {table('sessions')}"
    )
    (on_chain,) = one(f"select count(*) filter (where on_resume_chain) from {table('messages')}")
    (compaction_rows,) = one(f"select count(*) from {table('compactions')}")
    (calls,) = one(f"select count(*) from {table('tool-calls')}")
    return files, chain, comps, tokens, on_chain, compaction_rows, calls


def polars_counts(fmt, root):
    import glob

    import polars as pl

    def table(name):
        if fmt == "jsonl":
            return pl.scan_ndjson(glob.glob(f"{root}/{name}/**/*.jsonl.zst", recursive=True))
        return pl.scan_parquet(f"{root}/{name}/**/*.parquet", hive_partitioning=True)

    s = table("sessions").select(
        pl.len(), pl.col("chain_messages").sum(), pl.col("compactions").sum(), pl.col("resume_tokens").sum()
    ).collect().row(0)
    on_chain = table("messages").filter(pl.col("on_resume_chain")).select(pl.len()).collect().item()
    compaction_rows = table("compactions").select(pl.len()).collect().item()
    calls = table("tool-calls").select(pl.len()).collect().item()
    return (*s, on_chain, compaction_rows, calls)


def main():
    engine, fmt, root = sys.argv[1:4]
    counts = {"duckdb": duckdb_counts, "polars": polars_counts}[engine](fmt, root)
    keys = ["files", "chain_messages", "compactions", "resume_tokens", "messages_on_chain", "compaction_rows", "tool_calls"]
    print(json.dumps({k: int(v or 0) for k, v in zip(keys, counts)}, sort_keys=True))


if __name__ == "__main__":
    main()
