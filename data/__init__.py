"""tilepdb_data -- the data files shipped with tilepdb (installed under this name; data/ in a checkout).

Benchmark sets (`<name>.txt`) and partition presets (`partitions/<RxC>-<sizes>.txt`), found
through solvers.data_files.
"""
