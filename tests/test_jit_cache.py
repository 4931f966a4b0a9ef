"""`python -m solvers.jit --clear-cache` deletes numba's cache files of tilepdb's kernels, nothing else."""

from solvers import jit


def test_clear_cache_deletes_only_the_cached_kernels(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(jit, "ROOT", tmp_path)
    monkeypatch.setattr(jit, "in_checkout", lambda: True)
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    cached = ["solvers/__pycache__/heuristics._h_of-273.py311.nbi", "solvers/search/__pycache__/ida._ida-9.py311.1.nbc",
              "pdb_build/__pycache__/ranking._map_rank-59.py311.nbi", "tests/__pycache__/test_bits.k-9.py311.2.nbc"]
    kept = ["solvers/__pycache__/jit.cpython-311.pyc", "solvers/ranking.nbi", "data/__pycache__/x.nbi"]
    for name in cached + kept:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    assert jit.cache_files() == sorted(tmp_path / name for name in cached)
    assert jit.clear_cache_main(["--clear-cache"]) == 0
    assert capsys.readouterr().out == f"removed 4 cached kernel files under {tmp_path}\n"
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file()) == sorted(kept)
