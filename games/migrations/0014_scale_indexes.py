"""Indexes for a site with millions of events: a player's games from one covering index on
seats (user, with game and must_act), and no separate index on the game of events and snapshots,
whose unique (game, seq) indexes already serve every lookup by game."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0013_verified_address"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AlterField(
            model_name="event",
            name="game",
            field=models.ForeignKey(
                db_index=False,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="events",
                to="games.game",
            ),
        ),
        migrations.AlterField(
            model_name="snapshot",
            name="game",
            field=models.ForeignKey(
                db_index=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="snapshots",
                to="games.game",
            ),
        ),
        migrations.AddIndex(
            model_name="seat",
            index=models.Index(fields=["user"], include=("game", "must_act"), name="seat_user_games"),
        ),
    ]
