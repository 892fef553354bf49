"""A Notification's send claim: set while a sender talks to the mail server, outside any lock."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0008_outbox_one_path"),
    ]

    operations = [
        migrations.AddField(
            model_name="notification",
            name="claimed_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
    ]
