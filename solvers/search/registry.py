"""registry.py -- every search of tilepdb as data: its name, its function, its options, its batch settings.

A search is one module that ends with its call of `register(Search(...))` (the uninformed
baselines share one), and one line in SEARCH_MODULES below. Everything else is derived from the registry: `solve` (solvers/solve.py)
looks the search up and passes it the options it takes, refusing those it does not; the
commands' option parsers and their help add every option that some search takes
(solvers/commands/options.py); a batch row records each search's settings (solvers/batch.py) in the
columns `setting_fields()` lists.

An option is named once, by its keyword, and shared by the searches that take it (`--prune`
is IDA*'s and weighted IDA*'s, `--bpmx` that of IDA* and the best-first searches); a search with a new option
defines an `Option` in its own module and lists it in its registration.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from importlib import import_module

from solvers.errors import InputError
from solvers.search.move_pruning import DEFAULT_PRUNE, PRUNE_MODES

# The modules whose import registers a search, in the order of the commands' --algorithm
# choices and of the batch columns.
SEARCH_MODULES = (
    "solvers.search.ida",
    "solvers.search.astar",
    "solvers.search.reverse_astar",
    "solvers.search.wastar",
    "solvers.search.bwas",
    "solvers.search.greedy",
    "solvers.search.anytime",
    "solvers.search.wida",
    "solvers.search.beam",
    "solvers.search.bulb",
    "solvers.search.mm",
    "solvers.search.dibbs",
    "solvers.search.bae",
    "solvers.search.nbs",
    "solvers.search.gbfhs",
    "solvers.search.dvcbs",
    "solvers.search.staged",
    "solvers.search.uninformed",
)


@dataclass(frozen=True)
class Option:
    """One keyword option of some searches.

    `kind` tells a front end how to read it: "count" (a positive integer), "seconds" or
    "number" (a positive number), "choice" (one of `choices`), "switch" (given or not),
    "tristate" (auto, on or off: None, True or False), "folder" (a folder's path) or "object"
    (the Python API only). `default` is the value a search gets when the option is not given.
    `refusal` begins the one-line error for a search that does not take it ("BPMX applies",
    completed by " to ida and astar only, not to bfs"). `flags` are its command-line names, the
    first listed in --help, the others former names still read (default: its name's); `flag`
    is the first.
    """

    name: str
    kind: str
    help: str
    refusal: str
    default: object = None
    choices: tuple = ()
    flags: tuple = ()

    @property
    def flag(self) -> str:
        return self.flags[0] if self.flags else "--" + self.name.replace("_", "-")


NODE_LIMIT = Option("node_limit", "count", "give up after this many nodes: expanded by the depth-first searches, "
                    "stored by those that keep every state, held (stored, and the layer being built) by the beam "
                    "searches; a result that gives up says which; per instance, and per run where one search "
                    "makes several (anytime, greedy's restarts)", "a node limit applies")
MEMORY = Option("memory", "number", "GiB that the nodes of a search that stores them may fill when no node limit is "
                "given (default: a quarter of the memory available when it starts, the tables mapped from files "
                "taken off; a batch's workers share it)", "a memory budget applies")
TIME_LIMIT = Option("time_limit", "seconds", "give up after this many seconds; per instance (a batch gives each "
                    "instance its own)", "a time limit applies")
PRUNE = Option("prune", "choice", "move strings never tried: none, parent (the move back) or fsm (Taylor & Korf's "
               f"machine of duplicate move strings); default: {DEFAULT_PRUNE}",
               "move pruning and the full last iteration apply", DEFAULT_PRUNE, PRUNE_MODES)
FULL_LAST_ITERATION = Option("full_last_iteration", "switch", "complete the last iteration, so that node counts do "
                             "not depend on the move order (the solution is still the first found)",
                             "move pruning and the full last iteration apply", False)
BPMX = Option("bpmx", "tristate", "bidirectional pathmax: a child's h raises its parent's and cuts it off early; auto "
              "(the default) applies it where the heuristic may be inconsistent (PDBs that take the minimum over the "
              "blank, dual lookups, your own functions), but not with a learned heuristic, which overestimates", "BPMX applies")
THREADS = Option("threads", "count", "run on this many threads, the tree split at a shallow depth (default: 1)",
                 "several threads apply", 1, flags=("--jobs", "--threads"))
EXECUTOR = Option("executor", "object", "an executor for this search alone that runs its subtrees and is shut down "
                  "when the search ends (solvers/distributed.py's ClusterExecutor)", "an executor applies")


@dataclass(frozen=True)
class Search:
    """A registered search.

    `run(puzzle, start, heuristic, **options)` returns a verified SearchResult; it gets the
    options of `options` that were given, others keep their defaults (`heuristic` is None for
    an uninformed search). `settings(heuristic, options)` gives, for the fields of
    `setting_fields`, what a batch row records of how it searched (options holds every one of
    its options, defaults filled in); a resumed batch must use the same. `family` is the kind
    of kernels it compiles, "depth-first", "best-first" or "uninformed", which the notice
    before a first compile estimates by (compile_notice.COMPILE_SECONDS).
    """

    name: str
    summary: str
    run: Callable
    informed: bool
    family: str
    options: tuple[Option, ...] = ()
    setting_fields: tuple[str, ...] = ()
    settings: Callable = field(default=lambda heuristic, options: {})

    def takes(self, name: str) -> bool:
        return any(option.name == name for option in self.options)

    def with_defaults(self, given: dict) -> dict:
        """Every option of this search: `given`, the others at their defaults."""
        return {option.name: given.get(option.name, option.default) for option in self.options}


_REGISTERED: dict[str, Search] = {}  # filled once, by the imports of SEARCH_MODULES


def register(search: Search) -> None:
    """Announce `search` (called once, at the end of its module). A second search of its name,
    or an option name it defines otherwise than a search registered before it, is a bug."""
    if search.name in _REGISTERED and _REGISTERED[search.name] is not search:
        raise ValueError(f"a search named {search.name!r} is registered twice")
    known = _options_of(_REGISTERED.values())
    for option in search.options:
        if known.setdefault(option.name, option) != option:
            raise ValueError(f"option {option.name!r} is defined twice, differently")
    _REGISTERED[search.name] = search


@cache
def _import_search_modules() -> None:
    """Import SEARCH_MODULES, whose imports register their searches (once per process: the
    registry is read at every search)."""
    for module in SEARCH_MODULES:
        import_module(module)


def searches() -> dict[str, Search]:
    """Every registered search by name, in the order of SEARCH_MODULES."""
    _import_search_modules()
    return dict(_REGISTERED)


def search_named(name: str) -> Search:
    """The search called `name`; a one-line InputError naming the choices otherwise."""
    found = searches()
    if name not in found:
        raise InputError(f"unknown algorithm {name!r}; choose one of {', '.join(found)}")
    return found[name]


def informed_names() -> tuple[str, ...]:
    return tuple(name for name, search in searches().items() if search.informed)


def all_options() -> dict[str, Option]:
    """Every option some search takes, by name, in the order of first registration (`register`
    refuses a name defined twice with different meanings)."""
    return _options_of(searches().values())


def _options_of(registered) -> dict[str, Option]:
    """The options of the searches `registered`, by name, each at its first definition."""
    options: dict[str, Option] = {}
    for search in registered:
        for option in search.options:
            options.setdefault(option.name, option)
    return options


def takers(name: str) -> list[str]:
    """The searches that take option `name`."""
    return [search.name for search in searches().values() if search.takes(name)]


def given_options(search: Search, options: dict) -> dict:
    """The options of `options` that are given: all but those that are None (not given), which
    `checked_options` refuses where `search` does not take them, whatever their value (a
    value equal to a default, or off, is still a request the search cannot honour)."""
    known = all_options()
    for name in options:
        if name not in known:
            raise TypeError(f"unknown search option {name!r}")
    return {name: value for name, value in options.items() if value is not None}


def checked_options(search: Search, given: dict) -> dict:
    """`given` (from `given_options`) if `search` takes all of them; a one-line InputError for
    the first it does not take, naming the searches that do."""
    options = all_options()
    for name in given:
        if not search.takes(name):
            raise InputError(f"{options[name].refusal} to {names_listed(takers(name))} only, not to {search.name}")
    return given


def names_listed(names: list[str]) -> str:
    """Names in words: "ida", "ida and astar", "ida, astar and wastar"."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def setting_fields() -> list[str]:
    """The batch columns of every search's settings, in the order of first registration."""
    return list(dict.fromkeys(f for search in searches().values() for f in search.setting_fields))
