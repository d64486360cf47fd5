"""Calls out of the deployment: webhooks and web pushes, to public addresses only (the address rule both
their save and their delivery apply)."""
