"""search -- optimal and reference searches over a `Puzzle`; each returns a verified `SearchResult`."""
