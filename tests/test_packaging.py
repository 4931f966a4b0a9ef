"""Package data: presets and benchmark sets found in the checkout, by name, and from a built wheel."""

import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from pdb_build.partitions import preset_folder
from solvers.data_files import data_folder
from solvers.errors import InputError
from solvers.instances import load_instances, packaged_sets

ROOT = Path(__file__).resolve().parent.parent


PACKAGED_SETS = ["deepcubea15-500", "deepcubea24-496", "deepcubea35-500", "deepcubea48-500", "hardest8-31", "kf1000-15",
                 "korf100", "korf24-50", "random15-1000", "uniform6x6-100", "uniform7x7-100", "uniform8x8-50"]


def test_the_checkout_reads_its_own_data_folder():
    assert data_folder() == ROOT / "data"
    assert preset_folder() == ROOT / "data" / "partitions"


def test_packaged_sets_are_named_from_any_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert packaged_sets() == PACKAGED_SETS
    puzzle, instances = load_instances("hardest8-31")
    assert puzzle.board == "3x3" and [i.optimal for i in instances] == [31, 31]
    with pytest.raises(InputError, match=r"cannot read instance file korf101: .*packaged sets: deepcubea15-500, "):
        load_instances("korf101")


def test_a_file_in_the_working_folder_wins_over_a_packaged_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("korf100").write_text("1 2 3 4 5 6 7 0 8 | 1\n")
    puzzle, instances = load_instances("korf100")
    assert puzzle.board == "3x3" and len(instances) == 1


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """A wheel built with pip from a copy of the sources (no stale build/ folder, no PDBs)."""
    folder = tmp_path_factory.mktemp("wheel")
    source = folder / "src"
    for name in ("solvers", "pdb_build", "data"):
        shutil.copytree(ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__", "pdbs"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(folder), str(source)],
                   check=True, capture_output=True, timeout=300)
    (path,) = folder.glob("tilepdb-*.whl")
    return path


def test_the_wheel_holds_every_module_and_data_file(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    modules = [p.relative_to(ROOT).as_posix() for folder in ("solvers", "pdb_build") for p in (ROOT / folder).rglob("*.py")]
    data = [p.relative_to(ROOT / "data").as_posix()
            for p in [*ROOT.glob("data/*.txt"), *ROOT.glob("data/partitions/*.txt"), *ROOT.glob("data/models/*.h5")]]
    assert "partitions/4x4-7-8.txt" in data and "korf100.txt" in data and any(n.startswith("models/") for n in data)
    assert sorted(set(modules) - names) == []
    assert sorted({f"tilepdb_data/{name}" for name in data} - names) == []


def test_the_unpacked_wheel_finds_its_data_outside_the_checkout(wheel, tmp_path):
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    probe = (
        "import json; from solvers.puzzle import Puzzle; from solvers.data_files import data_folder; "
        "from pdb_build.partitions import preset; from pdb_build.cli import build_pdb_parser; "
        "from solvers.instances import load_instances, packaged_sets; "
        "print(json.dumps([str(data_folder()), preset(Puzzle(4, 4), '7-8').patterns, packaged_sets(), "
        "len(load_instances('korf100')[1]), build_pdb_parser().epilog]))"
    )
    done = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env={"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    folder, patterns, sets, n_korf, epilog = json.loads(done.stdout)
    assert folder == str(site / "tilepdb_data")
    assert (len(patterns), sets, n_korf) == (2, PACKAGED_SETS, 100)
    assert f"Presets are read from {site / 'tilepdb_data' / 'partitions'}." in epilog


def test_published_counts_have_one_count_per_instance():
    from solvers.instances import published_counts

    korf = published_counts("korf100-manhattan-nodes")
    assert len(korf) == 100 and sum(korf) == 36_302_808_031  # the total in the file's header (Korf 1985)
    assert len(published_counts("korf24-50-expansions")) == 50


def test_published_columns_name_the_c_solvers_counts_per_instance():
    from solvers.instances import load_instances, published_columns, published_counts

    columns = published_columns("korf24-50-c-solver-expansions")
    assert columns["instance"] == list(range(1, 51))
    _, instances = load_instances("korf24-50")
    assert columns["optimal_length"] == [i.optimal for i in instances]
    # the C solver's total expansions over the 20 instances easiest by Korf & Felner's published effort,
    # with the additive, zero-aware and small zero-aware tables: 5.7e10, 3.7e10, 1.4e10
    effort = published_counts("korf24-50-expansions")
    easiest = sorted(range(50), key=lambda i: effort[i])[:20]
    totals = [sum(columns[name][i] for i in easiest) for name in ("kf-additive", "kf-zero-aware", "small-zero-aware")]
    assert [round(t / 1e10, 1) for t in totals] == [5.7, 3.7, 1.4]



@pytest.mark.parametrize("name, board, optimal_mean, deepcubea_mean", [
    ("deepcubea15-500", "4x4", 52.022, 52.022), ("deepcubea24-496", "5x5", 89.411, 89.415),
    ("deepcubea35-500", "6x6", None, 124.652), ("deepcubea48-500", "7x7", None, 255.670)])
def test_deepcubeas_sets_hold_its_published_means(name, board, optimal_mean, deepcubea_mean):
    """DeepCubeA's test sets (Agostinelli et al. 2019): the means of the stored optimal lengths and
    of DeepCubeA's own lengths as published, every state solvable, and DeepCubeA never shorter
    than the optimum."""
    from solvers.instances import published_counts

    puzzle, instances = load_instances(name)
    theirs = published_counts(f"{name}-deepcubea-lengths")
    assert puzzle.board == board and len(theirs) == len(instances) == int(name.rsplit("-", 1)[1])
    assert all(puzzle.is_solvable(instance.start) for instance in instances)
    assert round(sum(theirs) / len(theirs), 3) == deepcubea_mean
    if optimal_mean is None:
        assert all(instance.optimal is None for instance in instances)
    else:
        optimal = [instance.optimal for instance in instances]
        assert round(sum(optimal) / len(optimal), 3) == optimal_mean
        assert all(t >= o for t, o in zip(theirs, optimal))
