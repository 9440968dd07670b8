"""Human evaluation studies run in a web app.

- :mod:`creval.human.config`: the study file (YAML, validated with pydantic);
- :mod:`creval.human.designs`: items file formats of the five study types, ``validate_items``, page building
  (style-matching rotation, Williams squares, page assignment), answer validation and tidy judgements;
- :mod:`creval.human.store`: the database (SQLite or PostgreSQL; claims, leases, idempotent submits, event log);
- :mod:`creval.human.web.app`: the FastAPI application (annotator and admin pages, exports);
- :mod:`creval.human.export`, :mod:`creval.human.summary`: exports and the results page;
- :mod:`creval.human.results`: the papers' study scores (pure functions over tidy judgements);
- :mod:`creval.human.prepare`: items files from a corpus and generations.
"""
