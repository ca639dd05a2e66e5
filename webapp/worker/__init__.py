"""The old name of the search host: ``python -m webapp.worker`` runs ``webapp.search_host``."""
