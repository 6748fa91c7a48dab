## The source tree's architecture, read from its #include lines: the
## analyzers below the daemon and apart from one another, the producers
## apart from their consumers, includes by folder, generated tables apart.
TESTS += tests/source_layout.sh
EXTRA_DIST += tests/source_layout.sh
