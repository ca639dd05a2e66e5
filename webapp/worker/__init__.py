"""The search host layer's old name: ``python -m webapp.worker`` runs ``webapp.search_host``."""
