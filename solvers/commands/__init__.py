"""commands -- the command-line front ends of the solvers, one module per command (solvers/cli.py names them).

Each is a thin front end over the Python API: it parses, calls one documented function, and
prints; bad input ends it with one line on stderr (cli_support.run_guarded).
"""
