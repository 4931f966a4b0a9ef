"""Files changed as a forger would change them: every checksum the file keeps of itself computed
again, so that only checks beyond the checksums (the loader's consistency checks, verify-pdb)
can catch the change."""

from contextlib import contextmanager

import h5py

from solvers.file_checksum import FILE_CHECKSUM, file_checksum

MODEL_FORMAT = "tilepdb-learned-heuristic"  # a model's file checksum covers its arrays too


@contextmanager
def forged(path):
    """Open the HDF5 file at `path` for writing; when the block ends, its file checksum is
    computed again over whatever the block changed."""
    with h5py.File(path, "r+") as handle:
        yield handle
        handle.attrs[FILE_CHECKSUM] = file_checksum(handle, data=handle.attrs.get("format") == MODEL_FORMAT)
