"""API documentation that works offline: the OpenAPI schema rendered as one plain HTML page.

Swagger UI and ReDoc load their scripts from a CDN (or from drf-spectacular-sidecar, which is
not installed), so the docs here are drawn on the server from the same schema as
``/api/schema/``: every operation with its parameters, request body and responses.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.template import Context, Engine
from django.templatetags.static import static
from drf_spectacular.generators import SchemaGenerator

# A template beside this module, so the page needs no template directory of the site.
_PAGE = Engine(dirs=[str(Path(__file__).resolve().parent)], autoescape=True).get_template("docs.html")


def _pretty(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


def _operations(schema: dict[str, Any]) -> list[tuple[str, list[dict[str, Any]]]]:
    groups: dict[str, list[dict[str, Any]]] = {}
    for path, item in schema.get("paths", {}).items():
        for method, op in item.items():
            if not isinstance(op, dict) or "responses" not in op:
                continue
            tag = (op.get("tags") or ["api"])[0]
            body = op.get("requestBody", {}).get("content", {})
            groups.setdefault(tag, []).append(
                {
                    "id": op.get("operationId", f"{method}-{path}"),
                    "method": method,
                    "path": path,
                    "summary": op.get("summary", ""),
                    "description": op.get("description", ""),
                    "parameters": _pretty(op["parameters"]) if op.get("parameters") else "",
                    "request": _pretty(body.get("application/json", body)) if body else "",
                    "responses": [(code, _pretty(response)) for code, response in op["responses"].items()],
                }
            )
    return sorted(groups.items())


def api_docs(request: HttpRequest) -> HttpResponse:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    components = sorted(schema.get("components", {}).get("schemas", {}).items())
    context = Context(
        {
            "info": schema.get("info", {}),
            "schema_url": "/api/schema/",
            "stylesheet": static("css/api-docs.css"),
            "favicon": static("img/favicon.svg"),
            "groups": _operations(schema),
            "components": [(name, _pretty(value)) for name, value in components],
        }
    )
    return HttpResponse(_PAGE.render(context))
