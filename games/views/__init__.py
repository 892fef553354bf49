"""Web views, one module per area (site pages, accounts, lobby, table, replay)."""
