"""What starts a process: the ``red7`` command, gunicorn's app, its settings and worker class, the
collector's settings of a long-lived process."""
