"""The person's notes: the catalog, front matter, the search index."""
