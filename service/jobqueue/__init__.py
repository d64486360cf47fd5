"""The job system: RQ behind one door (the only importer of ``rq``), the dispatcher that turns the
application's follow-ups into jobs or agenda entries, queue shards, fair shares, worker pulses."""
