"""``python -m webapp.worker ...``: the search host under its old name (deployments use it)."""

from webapp.search_host.__main__ import main

if __name__ == "__main__":
    main()
