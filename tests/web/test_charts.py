"""games.charts: several named series of (x, y) points as SVG coordinates, with a table of the
same numbers; the replay chart draws with it too."""

from __future__ import annotations

from django.template.loader import render_to_string

from games.charts import Series, line_chart, nice_step
from games.views.charts import line_chart as replay_chart


def test_several_series_share_axes_that_cover_every_point() -> None:
    chart = line_chart(
        [Series("Anne", [(0, 0.0), (1, -2.5), (2, 4.0)], "red"), Series("Bob", [(1, 7.25), (3, 1.0)])],
        title="Standings", unit="points", x_label="week",
    )
    values = [float(t["value"]) for t in chart["ticks"]]
    assert values[0] <= -2.5 and values[-1] >= 7.25
    assert values == sorted(values)
    ys = sorted(float(t["y"]) for t in chart["ticks"])
    assert chart["top"] <= ys[0] and ys[-1] <= chart["bottom"]
    anne, bob = chart["lines"]
    assert anne["colour"] == "red" and anne["last"] == 4.0 and bob["last"] == 1.0
    assert len(anne["points"].split()) == 3 and len(bob["points"].split()) == 2
    xs = [float(p.split(",")[0]) for p in bob["points"].split()]
    assert xs[-1] == chart["right"]  # x = 3 is the last column
    assert chart["table"]["columns"] == ["0", "1", "2", "3"]
    assert chart["table"]["rows"] == [
        {"name": "Anne", "values": ["0", "-2.5", "4", ""]},
        {"name": "Bob", "values": ["", "7.25", "", "1"]},
    ]


def test_a_single_point_gets_a_dot_and_an_empty_chart_draws_nothing() -> None:
    chart = line_chart([Series("Anne", [(0, 3.0)])], title="T", unit="u")
    assert len(chart["lines"][0]["dots"]) == 1
    empty = line_chart([], title="T", unit="u")
    assert empty["lines"] == [] and empty["table"]["columns"] == []


def test_the_template_draws_no_inline_script_or_style_and_labels_the_picture() -> None:
    chart = line_chart([Series("Anne", [(0, 0.0), (1, 2.0)])], title="Rating", unit="rating")
    html = render_to_string("games/_line_chart.html", {"chart": chart, "chart_id": "c1"})
    assert "<script" not in html and "style=" not in html
    assert 'role="img"' in html and 'aria-labelledby="c1-desc"' in html and "Anne 2.0 rating now" in html
    assert "<table>" in html and '<th scope="row">Anne</th>' in html


def test_steps_are_round_and_the_replay_chart_starts_at_zero() -> None:
    assert [nice_step(s) for s in (5, 12, 60, 130, 290)] == [1, 2, 10, 25, 50]
    rows: list[list[int | float]] = [[0, 0], [3, 5], [12, 8]]
    chart = replay_chart(rows, ["red", "blue"], {0: "Anne"}, title="Score", unit="ducats")
    assert chart["ticks"][0]["value"] == "0" and float(chart["ticks"][-1]["value"]) >= 12
    assert [line["seat"] for line in chart["lines"]] == [0, 1] and chart["frames"] == 3
    assert chart["lines"][0]["name"] == "Anne" and chart["lines"][1]["last"] == 8
