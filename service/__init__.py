"""The Red7 HTTP service: app factory, schemas, event store, auth."""
