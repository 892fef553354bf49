"""Verified addresses: ``PlayerProfile.verified_email``, and what existing accounts start with.

An address held by exactly one active account is marked verified for it: that person has been
receiving the game's mail there. An address shared by several active accounts is verified for
none of them (any one of them could be a squatter on someone else's address): each sees the
"verify your address" banner on every page and gets mail again once its owner follows the link.
Inactive accounts are never marked.
"""

from collections import defaultdict

from django.conf import settings
from django.db import migrations, models


def mark_sole_addresses_verified(apps, schema_editor):  # type: ignore[no-untyped-def]
    app_label, model_name = settings.AUTH_USER_MODEL.split(".")
    User = apps.get_model(app_label, model_name)
    PlayerProfile = apps.get_model("games", "PlayerProfile")
    holders: dict[str, list[int]] = defaultdict(list)
    for pk, email in User.objects.filter(is_active=True).exclude(email="").values_list("pk", "email"):
        address = (email or "").strip().lower()
        if address:
            holders[address].append(pk)
    for address, pks in holders.items():
        if len(pks) != 1:
            continue
        profile, _created = PlayerProfile.objects.get_or_create(user_id=pks[0])
        profile.verified_email = address
        profile.save(update_fields=["verified_email"])


class Migration(migrations.Migration):
    dependencies = [
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
        ("games", "0009_notification_claimed_at"),
    ]

    operations = [
        migrations.AddField(
            model_name="playerprofile",
            name="verified_email",
            field=models.CharField(blank=True, db_index=True, default="", max_length=254),
        ),
        migrations.RunPython(mark_sole_addresses_verified, migrations.RunPython.noop),
    ]
