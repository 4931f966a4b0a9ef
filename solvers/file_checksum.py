"""file_checksum.py -- one checksum over everything an HDF5 file of tilepdb says about itself.

A file's tables or weights carry their own checksums, but a loader also trusts the file's
attributes: its board, goal, partition, tiles, table kind, encoding, features. A checksum of the
data alone lets a relabelled file through (tables of a 4x4 board read as a 2x8 board's give
"optimal" answers that are not). So every file tilepdb writes also holds FILE_CHECKSUM: a
SHA-256 over every attribute of the file and of each of its datasets (the file checksum
itself excepted), each dataset's name, type and shape and, where asked, its bytes. The writer
computes it from the file as written, read back through h5py, and the loader recomputes it
the same way, so both see the same values whatever types h5py gives them.

The checksum proves that nothing was changed by accident or by a careless edit; it cannot
prove that a file is right: whoever changes a file can compute its checksum again. Only
verify-pdb, which checks every entry against independent invariants, proves a table right.
"""

from __future__ import annotations

import hashlib

import h5py
import numpy as np

FILE_CHECKSUM = "file_checksum"


def file_checksum(handle: h5py.File, *, data: bool) -> str:
    """SHA-256 (as "sha256:<hex>") over the attributes of the open file `handle` and of its
    datasets (FILE_CHECKSUM excepted), with each dataset's name, dtype and shape, in name
    order; with `data`, each dataset's bytes too (for small files: a PDB table is covered by its
    own checksum attribute instead)."""
    digest = hashlib.sha256()
    _update_attributes(digest, b"/", handle.attrs)
    names: list = []
    handle.visit(names.append)
    for name in sorted(names, key=_text):
        item = handle[name]
        digest.update(b"\0" + type(item).__name__.encode() + b" " + _text(name))
        if isinstance(item, h5py.Dataset):
            digest.update(f" {item.dtype.str} {item.shape}".encode())
            if data:
                digest.update(np.ascontiguousarray(item[()]).tobytes())
        _update_attributes(digest, _text(name), item.attrs)
    return "sha256:" + digest.hexdigest()


def _update_attributes(digest, owner: bytes, attrs: h5py.AttributeManager) -> None:
    """Feed `owner`'s attributes, sorted by name, each as name, type and value, into `digest`."""
    for name in sorted(attrs, key=_text):
        if owner == b"/" and name == FILE_CHECKSUM:
            continue
        digest.update(b"\0attr " + owner + b" " + _text(name) + b" ")
        digest.update(_value_bytes(attrs[name]))


def _text(value) -> bytes:
    """A name or string as bytes, whatever a damaged file holds (bytes, undecodable text)."""
    return value if isinstance(value, bytes) else str(value).encode("utf-8", "surrogatepass")


def _value_bytes(value) -> bytes:
    """An attribute's value as bytes that change whenever its type, shape or contents do."""
    if isinstance(value, (bytes, str)):
        return type(value).__name__.encode() + b" " + _text(value)
    array = np.asarray(value)
    if array.dtype.kind in "OSU":  # strings, as h5py may return them in arrays
        return f"strings {array.shape} ".encode() + b"\0".join(map(_text, array.ravel().tolist()))
    return f"{array.dtype.str} {array.shape} ".encode() + np.ascontiguousarray(array).tobytes()
