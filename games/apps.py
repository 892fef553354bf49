from django.apps import AppConfig


class GamesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "games"
    verbose_name = "Games"

    def ready(self) -> None:
        from games.inbound import webhooks

        # Replies posted by hosted mail providers (django-anymail's inbound signal).
        webhooks.connect()
