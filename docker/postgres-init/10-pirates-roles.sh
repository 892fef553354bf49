#!/bin/sh
# Run once by the postgres image on its first start (an empty data volume), as POSTGRES_USER.
# Two roles: pirates_owner owns the database and every table (the migrate service logs in as it,
# MIGRATE_DATABASE_URL), pirates is the service's role (DATABASE_URL): it owns nothing and gets
# its privileges from `manage.py migrate` (games/db_roles.py; on the event log SELECT and INSERT
# only). Passwords from PIRATES_DB_OWNER_PASSWORD (owner.env) and PIRATES_DB_SERVICE_PASSWORD
# (.env): keep them in step with the two URLs.
set -eu
: "${PIRATES_DB_OWNER_PASSWORD:?set PIRATES_DB_OWNER_PASSWORD in docker/owner.env}"
: "${PIRATES_DB_SERVICE_PASSWORD:?set PIRATES_DB_SERVICE_PASSWORD in docker/.env}"
psql -v ON_ERROR_STOP=1 -X --username "$POSTGRES_USER" --dbname postgres \
  -v owner_password="$PIRATES_DB_OWNER_PASSWORD" -v service_password="$PIRATES_DB_SERVICE_PASSWORD" \
  -v db="$POSTGRES_DB" <<'SQL'
CREATE ROLE pirates_owner LOGIN PASSWORD :'owner_password';
CREATE ROLE pirates LOGIN PASSWORD :'service_password';
ALTER DATABASE :"db" OWNER TO pirates_owner;
REVOKE ALL ON DATABASE :"db" FROM PUBLIC;
GRANT CONNECT, TEMPORARY ON DATABASE :"db" TO pirates;
\connect :"db"
REVOKE CREATE ON SCHEMA public FROM PUBLIC;
SQL
