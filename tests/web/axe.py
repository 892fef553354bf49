"""axe-core (vendored in tests/web/vendor/) run against a real page by the browser tests.

The page's Content-Security-Policy refuses injected scripts, so a context that runs axe is
opened with ``bypass_csp=True``; no other context does that."""

from __future__ import annotations

from pathlib import Path
from typing import Any

AXE = Path(__file__).resolve().parent / "vendor" / "axe.min.js"
SERIOUS = """async () => {
  const result = await axe.run(document, {resultTypes: ['violations']});
  return result.violations
    .filter(v => v.impact === 'serious' || v.impact === 'critical')
    .map(v => ({id: v.id, impact: v.impact, help: v.help,
                nodes: v.nodes.slice(0, 3).map(n => n.target.join(' '))}));
}"""


def serious_violations(page: Any) -> list[dict[str, Any]]:
    """The serious and critical axe violations of the page as it is now."""
    page.add_script_tag(path=str(AXE))
    return list(page.evaluate(SERIOUS))
