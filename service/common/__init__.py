"""Below everything of the service: typed refusals, texts in eight languages, settings. Pure."""
