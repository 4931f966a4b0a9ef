"""Sphinx configuration of tilepdb's documentation site (`sphinx-build -W docs docs/_build/html`).

Sphinx rather than MkDocs: autodoc reads the docstrings of the numba-compiled modules as they
are, sphinx-argparse writes the command reference from the very parsers the commands run,
MyST-NB executes the tutorials as notebooks during the build, and `-W` with nitpicky
references turns every broken internal link or reference into a failed build.
"""

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from importlib.metadata import version as installed_version  # noqa: E402

project = "tilepdb"
author = "the tilepdb authors"
copyright = "2026, the tilepdb authors"
release = version = installed_version("tilepdb")

extensions = [
    "myst_nb",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.viewcode",
    "sphinxarg.ext",
    "sphinx-mathjax-offline",  # MathJax copied into the site, not fetched: the site reads offline
]

exclude_patterns = ["_build", "jupyter_execute", "**.ipynb_checkpoints"]
source_suffix = {".md": "myst-nb", ".rst": "restructuredtext"}

# MyST: GitHub-style heading anchors, so that BENCHMARKS.md's links work here too.
myst_enable_extensions = ["colon_fence", "dollarmath", "deflist"]
myst_heading_anchors = 3

# Tutorials are executed on every build: a tutorial whose code fails fails the build.
nb_execution_mode = "force"
nb_execution_raise_on_error = True
nb_execution_timeout = 600
nb_execution_show_tb = True
nb_merge_streams = True

# Every reference must resolve (broken internal links fail the build); types of other libraries
# are not linked: the build needs no network.
nitpicky = True
# Private classes (a leading underscore) are not documented, so annotations naming them are not linked.
nitpick_ignore_regex = [("py:class", r"(numpy|pathlib|collections|concurrent|typing|h5py|dask|distributed)\..*"),
                        ("py:class", r".*\._\w+")]

autodoc_default_options = {"members": True, "undoc-members": False, "show-inheritance": False}
autodoc_typehints = "description"
autodoc_member_order = "bysource"
autodoc_mock_imports = []

html_theme = "pydata_sphinx_theme"
html_title = "tilepdb"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
}
html_static_path = []
autodoc_inherit_docstrings = False


# Read offline (a cluster node, a train): no page may load a script, a style sheet or a font
# from the network. Checked on every page the build writes; one that would fails the build.
REMOTE_ASSET = re.compile(r"""<(?:script|link|img)\b[^>]*\b(?:src|href)=["'](?:https?:)?//""", re.IGNORECASE)


def _refuse_remote_assets(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    remote = [page.relative_to(app.outdir).as_posix() for page in Path(app.outdir).rglob("*.html")
              if REMOTE_ASSET.search(page.read_text(encoding="utf-8"))]
    if remote:
        raise RuntimeError(f"pages that load assets from the network: {', '.join(sorted(remote)[:10])}")


def setup(app):
    app.connect("build-finished", _refuse_remote_assets)
