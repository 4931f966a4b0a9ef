"""build-pdb as a user runs it: sizes first, a summary last, one-line errors with exit status 2."""

import subprocess
import sys

import h5py
import pytest

from pdb_build.store import load_partition
from solvers.puzzle import Puzzle


def run(*args, cwd=None):
    done = subprocess.run(
        [sys.executable, "-m", "pdb_build.cli", *args], capture_output=True, text=True, timeout=300, cwd=cwd
    )
    return done.returncode, done.stdout, done.stderr


def test_builds_a_preset_and_reports_it(tmp_path):
    out = tmp_path / "pdb.h5"
    status, stdout, stderr = run("--board", "3x3", "--preset", "4-4", "--out", str(out), "--quiet")
    assert status == 0, stderr
    assert "3,024 entries, BFS over 5,520 states" in stdout and "memory needed" in stdout
    assert f"built {out}" in stdout and "max 15" in stdout
    assert load_partition(out, Puzzle(3, 3)).partition.name == "4-4"


def test_codec_none_writes_uncompressed_tables(tmp_path):
    out = tmp_path / "plain.h5"
    status, _, stderr = run("--board", "3x3", "--preset", "4-4", "--out", str(out), "--quiet", "--codec", "none")
    assert status == 0, stderr
    with h5py.File(out) as handle:
        assert handle["pattern_0"].id.get_create_plist().get_nfilters() == 0
    assert load_partition(out, Puzzle(3, 3)).partition.name == "4-4"


def test_default_path_and_custom_non_additive_patterns(tmp_path):
    status, stdout, stderr = run(
        "--board", "2x4", "--goal", "0 1 2 3 4 5 6 7", "--pattern", "1,2,3", "--pattern", "4,5", "--non-additive",
        "--quiet", cwd=tmp_path,
    )
    assert status == 0, stderr
    (path,) = (tmp_path / "data" / "pdbs").iterdir()
    assert path.name.startswith("2x4-blank-first-custom-3-2-") and path.name.endswith("-non-additive.h5")
    with h5py.File(path) as handle:
        assert handle.attrs["cost_model"] == "non-additive"


@pytest.mark.parametrize(
    "args, message",
    [
        (["--board", "4x4", "--preset", "9-9"], "unknown preset '9-9'"),
        (["--board", "4x4", "--pattern", "1,2", "--pattern", "2,3"], "tile 2 appears in patterns 1 and 2"),
        (["--board", "4x4", "--pattern", "1,2,3,4,5,6,7,8,9"], "patterns hold 1 to 8 tiles"),
        (["--board", "5x5", "--pattern", "1,2,3,4,5,6,7,8"], "GiB is available"),
        (["--board", "4x4x4", "--preset", "7-8"], "not of the form RxC"),
        (["--board", "1x4", "--preset", "7-8"], "board 1x4 is not supported"),
        (["--board", "3x3", "--goal", "1 2 3", "--preset", "4-4"], "goal has 3 tiles"),
        (["--board", "4x4", "--preset", "7-8", "--pattern", "1,2"], "not allowed with argument"),
        (["--preset", "7-8"], "--board is required (unless --from)"),
        (["--board", "3x3", "--preset", "4-4", "--codec", "lz4"], "invalid choice: 'lz4'"),
    ],
)
def test_invalid_options_exit_2_with_one_line(args, message):
    status, stdout, stderr = run(*args)
    assert status == 2 and message in stderr
    assert stderr.count("\n") == 1 and "Traceback" not in stderr


def test_an_existing_file_needs_force(tmp_path):
    out = tmp_path / "pdb.h5"
    out.write_bytes(b"keep me")
    status, _, stderr = run("--board", "3x3", "--preset", "4-4", "--out", str(out), "--quiet")
    assert status == 2 and "exists; use --force" in stderr and out.read_bytes() == b"keep me"
    status, _, stderr = run("--board", "3x3", "--preset", "4-4", "--out", str(out), "--quiet", "--force")
    assert status == 0, stderr
    load_partition(out, Puzzle(3, 3))


def test_an_unwritable_target_is_refused_and_leaves_nothing(tmp_path):
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("a file where a directory should be")
    status, _, stderr = run("--board", "3x3", "--preset", "4-4", "--out", str(blocker / "pdb.h5"), "--quiet")
    assert status == 2 and "cannot write" in stderr and stderr.count("\n") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["not-a-directory"]
