"""Accounts: sign up, emailed log-in links and the profile page (Django's views do the rest)."""

from __future__ import annotations

import logging
import smtplib
from typing import Any
from urllib.parse import urlencode, urlsplit
from zoneinfo import ZoneInfo

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import PasswordResetForm
from django.contrib.auth.models import AnonymousUser, User
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.urls import Resolver404, resolve, reverse
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_http_methods

from games import services
from games.forms import LoginLinkForm, ProfileForm, SignupForm
from games.services import accounts as account_services
from games.throttling import (
    AccountEmailAddressThrottle,
    AccountEmailThrottle,
    SignupAddressThrottle,
    SignupThrottle,
    VerifyEmailThrottle,
    refusal,
    throttle,
)
from games.timezones import remember_zone

logger = logging.getLogger(__name__)
# What a mail server (or the backend) raises when it cannot take an email.
MAIL_ERRORS: tuple[type[Exception], ...] = (smtplib.SMTPException, OSError)


def current_user(request: HttpRequest) -> User:
    """The logged-in user of a view behind ``login_required``."""
    user = request.user
    if isinstance(user, AnonymousUser):
        raise PermissionDenied("Log in first.")
    return user


def safe_next(request: HttpRequest, default: str = "/games/") -> str:
    """``next`` if it is a path on this site, else ``default``. Only paths: ``redirect("0")``
    would look "0" up as a view name (a server error), and a relative "x" means another page
    on every page it is read from."""
    candidate = request.POST.get("next") or request.GET.get("next") or ""
    if (
        candidate.startswith("/")
        and not candidate.startswith("//")
        and url_has_allowed_host_and_scheme(
            candidate, allowed_hosts={request.get_host()}, require_https=request.is_secure()
        )
    ):
        return candidate
    return default


def _invited_address(next_url: str) -> str:
    """The address an invitation went to, when sign-up is on the way to that invitation's link
    (the invite view sends people here with ``next=/invite/<token>/``); else nothing. Only the
    token's own invitation is read: the address is not taken from the query string."""
    try:
        match = resolve(urlsplit(next_url).path)
    except Resolver404:
        return ""
    if match.url_name != "invite":
        return ""
    try:
        return services.invitation_for(str(match.kwargs.get("token", ""))).email
    except services.ServiceError:
        return ""


@require_http_methods(["GET", "POST"])
@throttle(SignupThrottle, SignupAddressThrottle,
          detail="Too many sign-ups from your address or with this email address.")
def signup(request: HttpRequest) -> HttpResponse:
    next_url = safe_next(request)
    if request.user.is_authenticated:
        return HttpResponseRedirect(next_url)
    form = SignupForm(request.POST or None, initial={"email": _invited_address(next_url)})
    if request.method == "POST" and form.is_valid():
        user = form.save()
        profile = services.profile_for(user)
        profile.display_name = form.cleaned_data.get("display_name", "")
        profile.timezone = form.cleaned_data.get("timezone") or "UTC"
        profile.save(update_fields=["display_name", "timezone"])
        # An account made by signing up has no verified address yet, whatever else made it.
        account_services.forget_verification(user)
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        remember_zone(request, profile.timezone)
        # Self-service accounts start unverified: the link emailed now proves the address.
        if _send_link(request, user, next_url):
            messages.success(
                request,
                f"Welcome aboard, {user.get_username()}! We emailed a link to {user.email}: follow it "
                "to verify your address. Until then no game email goes there.",
            )
        return HttpResponseRedirect(next_url)
    return render(request, "registration/signup.html", {"form": form, "next": next_url})


@require_http_methods(["GET", "POST"])
@throttle(AccountEmailThrottle, AccountEmailAddressThrottle)
def login_link_request(request: HttpRequest) -> HttpResponse:
    form = LoginLinkForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        services.login_link_send(email=form.cleaned_data["email"], next_path=safe_next(request))
        # The same answer whether or not an account exists: addresses are not revealed.
        messages.success(request, "If an account uses that address, a log-in link is on its way.")
        return redirect(settings.LOGIN_URL)
    return render(request, "registration/login_link.html", {"form": form, "next": safe_next(request)})


def _send_link(request: HttpRequest, user: User, next_url: str) -> bool:
    """Email the verification link; a mail server that fails is said, not a server error (the
    "Send the link again" button tries later)."""
    try:
        return account_services.verification_send(user, next_path=next_url)
    except MAIL_ERRORS:
        logger.warning("the verification link for user %s could not be sent", user.pk, exc_info=True)
        messages.error(request, "We could not send the link to verify your address just now: "
                                "use “Send the link again” in a while.")
        return False


def _change_address(request: HttpRequest, user: User, new_email: str) -> bool:
    try:
        return account_services.email_change(user=user, email=new_email)
    except MAIL_ERRORS:
        logger.warning("the verification link for user %s could not be sent", user.pk, exc_info=True)
        messages.error(request, "Your new address is saved, but we could not send the link to verify "
                                "it just now: use “Send the link again” in a while.")
        return False


@require_http_methods(["GET"])
def verify_address(request: HttpRequest, token: str) -> HttpResponse:
    """The link in a verification email: the account's address becomes verified. It does not
    log anyone in (a log-in link does that)."""
    try:
        user, next_path = account_services.address_verify(token)
    except services.ServiceError as exc:
        messages.error(request, exc.detail)
        return redirect("profile" if request.user.is_authenticated else settings.LOGIN_URL)
    messages.success(request, f"Thank you: {user.email} is verified.")
    if request.user.is_authenticated and request.user.pk == user.pk:
        return redirect(next_path or "profile")
    return redirect(f"{reverse(settings.LOGIN_URL)}?{urlencode({'next': next_path or '/games/'})}")


@login_required
@require_http_methods(["POST"])
@throttle(VerifyEmailThrottle, AccountEmailThrottle, detail="Too many verification emails.")
def verification_resend(request: HttpRequest) -> HttpResponse:
    """The "send the link again" button (profile, banner, invitation page)."""
    user = current_user(request)
    next_url = safe_next(request, default="")
    if account_services.address_verified(user):
        messages.info(request, f"{user.email} is verified already.")
    elif not user.email:
        messages.error(request, "Your account has no email address: add one on your profile.")
    elif _send_link(request, user, next_url):
        messages.success(request, f"We emailed a new link to {user.email}: follow it to verify your address.")
    return HttpResponseRedirect(next_url or reverse("profile"))


@login_required
@require_http_methods(["GET", "POST"])
def profile(request: HttpRequest) -> HttpResponse:
    profile = services.profile_for(current_user(request))
    zone = (
        ZoneInfo(profile.timezone)
        if profile.timezone in services.accounts.timezone_names()
        else ZoneInfo("UTC")
    )
    user = current_user(request)
    if request.method == "POST":
        form = ProfileForm(request.POST)
        if form.is_valid():
            data = form.cleaned_data
            new_email = (data.get("email") or "").strip()
            if new_email and new_email != user.email:
                # A new address emails a link: as throttled as "send the link again".
                refused = refusal(request, VerifyEmailThrottle, detail="Too many address changes.")
                if refused is not None:
                    return refused
            chosen_zone = ZoneInfo(data["timezone"])
            away = data["away_until"]
            if away is not None:
                # The browser sends a wall-clock time: it is in the timezone chosen on the form.
                wall_clock = timezone.make_naive(away) if timezone.is_aware(away) else away
                away = wall_clock.replace(tzinfo=chosen_zone)
            try:
                services.profile_update(
                    user=user,
                    display_name=data["display_name"],
                    notify=data["notify"],
                    timezone_name=data["timezone"],
                    away_until=away,
                    confirm_moves=data["confirm_moves"],
                    rate_private_games=data["rate_private_games"],
                )
                # The form checked the address; the link goes out after the profile is saved.
                sent = bool(new_email) and _change_address(request, user, new_email)
            except services.ServiceError as exc:
                if "away" in exc.detail.lower():
                    form.add_error("away_until", exc.detail)
                elif "address" in exc.detail.lower():
                    form.add_error("email", exc.detail)
                else:
                    form.add_error(None, exc.detail)
                user.refresh_from_db()
            else:
                remember_zone(request, data["timezone"])
                messages.success(request, "Your profile is saved.")
                if sent:
                    kept = account_services.mail_address(user)
                    messages.info(
                        request,
                        f"We emailed a link to {user.email}: follow it to verify your new address."
                        + (f" Until then your email still goes to {kept}." if kept else ""),
                    )
                return redirect("profile")
    else:
        initial = {
            "email": user.email,
            "display_name": profile.display_name,
            "notify": profile.notify,
            "timezone": profile.timezone,
            "confirm_moves": profile.confirm_moves,
            "rate_private_games": profile.rate_private_games,
            "away_until": timezone.localtime(profile.away_until, zone).replace(tzinfo=None)
            if profile.away_until
            else None,
        }
        form = ProfileForm(initial=initial)
    return render(request, "accounts/profile.html", {
        "form": form, "profile": profile, "address_verified": account_services.address_verified(user),
        "mail_address": account_services.mail_address(user),
    })


class PasswordResetView(auth_views.PasswordResetView):
    """Django's reset page, with the emailed link built from ``SITE_URL``. Django builds it from
    the request's Host header, which the person asking chooses: behind a proxy that passes any
    Host, a reset asked for someone else's address would mail them a link to the asker's host,
    token included."""

    def form_valid(self, form: PasswordResetForm) -> HttpResponse:
        site = urlsplit(settings.SITE_URL)
        context: dict[str, Any] = {**(self.extra_email_context or {}), "site_url": settings.SITE_URL}
        form.save(
            domain_override=site.netloc,
            use_https=site.scheme == "https",
            token_generator=self.token_generator,
            from_email=self.from_email,
            email_template_name=self.email_template_name,
            subject_template_name=self.subject_template_name,
            html_email_template_name=self.html_email_template_name,
            extra_email_context=context,
            request=None,  # nothing of the request goes into the email
        )
        return HttpResponseRedirect(self.get_success_url())
