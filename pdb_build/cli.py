"""cli.py -- `build-pdb`: build a partition's pattern databases into one HDF5 file;
`verify-pdb`: check built files entry by entry (pdb_build/verify.py).

build-pdb exit status: 0 built, 2 invalid input or a build that cannot be done (one line on
stderr), 130 interrupted (no file is left at the target path). verify-pdb exit status: 0 every
file passed, 1 some table failed a check, 2 a file could not be verified and none failed,
130 interrupted. The console scripts and `python -m pdb_build.cli` (build-pdb) run them through
solvers/entry.py, which handles Ctrl-C before these modules are imported.
"""

from __future__ import annotations

import sys

if __name__ == "__main__":  # before the imports below, as the console script does
    from solvers.entry import build_pdb_main as _build_pdb_script

    sys.exit(_build_pdb_script())

from pathlib import Path

from pdb_build.bfs import table_stats
from pdb_build.build import build_pdb_file, encode_pdb_file, plan_build
from pdb_build.compress import NONE, describe, parse_compression
from pdb_build.partitions import custom, preset, preset_folder
from pdb_build.store import (
    CODECS, DEFAULT_CODEC, PLAIN, ZERO_AWARE, check_target, default_file_name, load_partition,
)
from pdb_build.verify import prepare, verify_pdb
from solvers.cli_support import (
    EXIT_INVALID,
    EXIT_OK,
    OneLineParser,
    add_goal_option,
    add_quiet_option,
    positive_int,
    run_guarded,
    show_progress,
)
from solvers.compile_notice import add_verbose_option, announcing, build_seconds, shown, verify_seconds
from solvers.errors import InputError
from solvers.puzzle import Puzzle, parse_board

DEFAULT_DIR = Path("data") / "pdbs"


def build_pdb_parser() -> OneLineParser:
    parser = OneLineParser(
        prog="build-pdb",
        description="Build additive disjoint pattern databases for a board, goal and partition.",
        epilog=f"Presets are read from {preset_folder()}. Exit status: 0 built, 2 invalid input, 130 interrupted.",
    )
    parser.add_argument("--board", help="RxC, rows x columns, e.g. 4x4 (required unless --from)")
    add_goal_option(parser)
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--from", dest="source", metavar="FILE",
                       help="encode this uncompressed file with --compress instead of building (board, goal, "
                            "partition and kind come from it)")
    which.add_argument("--preset", help="a preset partition named by its pattern sizes, e.g. 7-8, 6-6-3, 5-5-5")
    which.add_argument(
        "--pattern", action="append", metavar="TILES", help="the tiles of one pattern, e.g. 1,2,3 (repeat per pattern)"
    )
    parser.add_argument("--out", help=f"the file to write (default: {DEFAULT_DIR}/<board>-<goal>-<partition>.h5)")
    parser.add_argument("--force", action="store_true", help="overwrite an existing file")
    parser.add_argument(
        "--non-additive", action="store_true",
        help="count every move, not only the pattern's (tables for max-combination only)",
    )
    parser.add_argument(
        "--zero-aware", action="store_true",
        help="one value per placement and region of the blank, not the minimum over regions "
             "(stronger, larger; additive only)",
    )
    parser.add_argument(
        "--codec", choices=list(CODECS), default=DEFAULT_CODEC,
        help="how the file stores the tables, losslessly: none (the default: mapped from the file at load, "
             "shared by every process), zstd (several times smaller on disk, unpacked into each process's memory at "
             "load; needs hdf5plugin) or gzip (any HDF5 reader, slowest); the searches read the same entries "
             "whatever the codec, unlike --compress",
    )
    parser.add_argument(
        "--compress", default="none", metavar="FORM",
        help="how many bits each entry takes, in the file and in memory while searching: none (the default, 8), "
             "min:K (K merged entries hold their minimum, K a power of two; lossy, still admissible), nibble (4, "
             "values up to 15) or delta (1; zero-aware tables only); unlike --codec, the searches read the encoded "
             "entries; combine the two freely",
    )
    add_quiet_option(parser)
    add_verbose_option(parser)
    return parser


def build_pdb_main(argv: list[str] | None = None) -> int:
    """Run `build-pdb`; returns the exit status."""
    args = build_pdb_parser().parse_args(argv)
    return run_guarded("build-pdb", lambda: _build_pdb(args), "interrupted; no file was written")


def _build_pdb(args) -> int:
    if args.source is not None:
        return _encode_pdb(args)
    if args.board is None:
        raise InputError("--board is required (unless --from)")
    puzzle = Puzzle(*parse_board(args.board), args.goal)
    partition = preset(puzzle, args.preset) if args.preset is not None else custom(puzzle, args.pattern)
    cost_model = "non-additive" if args.non_additive else "additive"
    if args.zero_aware and args.non_additive:
        raise InputError("zero-aware tables are additive: --zero-aware cannot be combined with --non-additive")
    table_kind = ZERO_AWARE if args.zero_aware else PLAIN
    compression = parse_compression(args.compress)
    out = Path(args.out) if args.out else DEFAULT_DIR / default_file_name(puzzle, partition, cost_model, table_kind,
                                                                          compression)
    check_target(out, args.force)  # before the layout and the size report
    with announcing("build-pdb", "the table builder's kernels", build_seconds(),
                    shown(args.verbose, args.quiet)):
        return _built(args, puzzle, partition, cost_model, compression, out)


def _built(args, puzzle, partition, cost_model: str, compression, out: Path) -> int:
    plan = plan_build(puzzle, partition, additive=not args.non_additive, zero_aware=args.zero_aware)
    print(f"board {puzzle.board}, goal {' '.join(map(str, puzzle.goal))}, partition {partition.name} "
          f"({partition.sizes}), {cost_model}{', zero-aware' if args.zero_aware else ''}, {describe(compression)}")
    for pattern, entries, space in zip(partition.patterns, plan.table_entries, plan.spaces):
        print(f"  tiles {','.join(map(str, pattern)):<24} {entries:>13,} entries, BFS over {space.n_states:,} states")
    print(f"memory needed {plan.memory_needed / 2**20:,.0f} MiB; writing {out}")
    path, built = build_pdb_file(plan, out, force=args.force, progress=show_progress(args.quiet), codec=args.codec,
                                 compression=compression)
    for table in built:
        stats = table_stats(table.table)
        print(f"  tiles {','.join(map(str, table.pattern)):<24} {table.table.size:>13,} entries, max {stats.max}, "
              f"mean {stats.mean:.3f}, {table.seconds:.1f} s")
    print(f"built {path} ({path.stat().st_size / 2**20:,.1f} MiB) in {sum(t.seconds for t in built):.1f} s of BFS")
    return EXIT_OK


def _encode_pdb(args) -> int:
    compression = parse_compression(args.compress)
    if compression == NONE or args.board or args.goal or args.zero_aware or args.non_additive:
        raise InputError("--from takes --compress (not none) and the file's own board, goal, partition and kind")
    source = load_partition(args.source)
    out = Path(args.out) if args.out else Path(args.source).with_name(
        default_file_name(source.puzzle, source.partition, source.cost_model, source.table_kind, compression))
    del source
    path, built = encode_pdb_file(args.source, out, compression, force=args.force, codec=args.codec)
    print(f"encoded {args.source} as {describe(compression)}: {path} ({path.stat().st_size / 2**20:,.1f} MiB)")
    return EXIT_OK


EXIT_FAILED = 1


def verify_pdb_parser() -> OneLineParser:
    parser = OneLineParser(
        prog="verify-pdb",
        description="Check every entry of built PDB files against invariants of a correct additive table.",
        epilog="Exit status: 0 every file passed, 1 a table failed a check, 2 a file could not be verified, 130 interrupted.",
    )
    parser.add_argument("files", nargs="+", metavar="FILE", help="PDB files written by build-pdb")
    parser.add_argument("--sample", type=positive_int, metavar="N", help="check N random entries of each table, not all")
    parser.add_argument("--seed", type=int, default=1, help="random seed of --sample (default 1)")
    add_quiet_option(parser)
    add_verbose_option(parser)
    return parser


def verify_pdb_main(argv: list[str] | None = None) -> int:
    """Run `verify-pdb`; returns the exit status."""
    args = verify_pdb_parser().parse_args(argv)
    return run_guarded("verify-pdb", lambda: _verify_pdb(args))


def _verify_pdb(args) -> int:
    with announcing("verify-pdb", "the checker's kernels", verify_seconds(), shown(args.verbose, args.quiet)):
        prepare()  # compiled before the clock: each verdict times its check alone
    return _verified(args)


def _verified(args) -> int:
    failed = unverified = False
    for path in args.files:
        try:
            verdict = verify_pdb(path, args.sample, seed=args.seed, progress=show_progress(args.quiet))
        except InputError as error:
            print(f"verify-pdb: error: {error}", file=sys.stderr)
            unverified = True
            continue
        print(verdict.line(), flush=True)
        failed |= not verdict.ok
    return EXIT_FAILED if failed else EXIT_INVALID if unverified else EXIT_OK

