"""Verified addresses: ``VerifiedAddress``, and what existing accounts start with.

An address held by exactly one active account is marked verified for it: that person has been
receiving the game's mail there. An address shared by several active accounts is verified for
none of them (any one of them could be a squatter on someone else's address): each sees the
"verify your address" banner on every page and gets mail again once its owner follows the link.
Inactive accounts are never marked.
"""

from collections import defaultdict

from django.conf import settings
import django.db.models.deletion
import django.utils.timezone
from django.db import migrations, models


def mark_sole_addresses_verified(apps, schema_editor):  # type: ignore[no-untyped-def]
    app_label, model_name = settings.AUTH_USER_MODEL.split(".")
    User = apps.get_model(app_label, model_name)
    VerifiedAddress = apps.get_model("games", "VerifiedAddress")
    holders: dict[str, list[int]] = defaultdict(list)
    for pk, email in User.objects.filter(is_active=True).exclude(email="").values_list("pk", "email"):
        address = (email or "").strip().lower()
        if address:
            holders[address].append(pk)
    for address, pks in holders.items():
        if len(pks) != 1:
            continue
        VerifiedAddress.objects.update_or_create(user_id=pks[0], defaults={"address": address})


class Migration(migrations.Migration):
    dependencies = [
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
        ("games", "0012_listed_moves"),
    ]

    operations = [
        migrations.CreateModel(
            name="VerifiedAddress",
            fields=[
                (
                    "user",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="verified_address",
                        serialize=False,
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                ("address", models.CharField(db_index=True, max_length=254)),
                ("verified_at", models.DateTimeField(default=django.utils.timezone.now)),
            ],
        ),
        migrations.RunPython(mark_sole_addresses_verified, migrations.RunPython.noop),
    ]
