"""A domain's schema and catalogue, read from `configs/domains/` and `configs/catalogues/`."""
