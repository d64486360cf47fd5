"""A soak: the production shape under a mixed load and a seeded nemesis for minutes or an hour, then a checker over
the whole recorded history (issue 42).  ``python -m bench.soak --minutes N --seed S``; ``--check FILE`` checks a saved
history again.  See :mod:`bench.soak.run` (one soak), :mod:`bench.soak.load`, :mod:`bench.soak.nemesis` and
:mod:`bench.soak.checker`."""
