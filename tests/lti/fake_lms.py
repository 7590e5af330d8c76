"""A real LTI 1.3 platform for the tests, built on the platform-side library lti1p3platform
and served by the test server beside Parsnip (under /fake-lms/). It signs launches with its
own key, fetches Parsnip's keys to check what Parsnip signs, issues access tokens, keeps a
gradebook (line items and the scores posted to them) and a roster. Faults are injected by
setting `score_failures`, `token_failures`, `score_hangs`, `roster_failures`,
`roster_hangs`, `keyset_failures` and `keyset_hangs`; `rotate_key` changes its signing key.

Its pages render no templates (the test server's CSP applies): a launch is a form with a
button, which a browser test clicks and a requests-driven test submits itself.
"""

import functools
import json
import threading
import time
import uuid
from dataclasses import dataclass, field
from html import escape
from urllib.parse import urlencode, urlsplit

import jwt
from cryptography.hazmat.primitives import serialization
from django.conf import settings
from django.http import HttpResponse, HttpResponseRedirect, JsonResponse
from django.urls import path
from django.views.decorators.csrf import csrf_exempt
from jwcrypto.jwk import JWK
from lti1p3platform.ltiplatform import LTI1P3PlatformConfAbstract
from lti1p3platform.message_launch import LTIAdvantageMessageLaunchAbstract
from lti1p3platform.oidc_login import OIDCLoginAbstract
from lti1p3platform.registration import Registration
from lti1p3platform.request import Request

INSTRUCTOR = "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"
LEARNER = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"
CLIENT_ID = "parsnip-client"
DEPLOYMENT_ID = "deployment-1"
SCORE_TYPE = "application/vnd.ims.lis.v1.score+json"


def new_key() -> tuple[str, str]:
    """A key pair for the platform: its private and public PEM."""
    key = JWK.generate(kty="RSA", size=2048)
    return key.export_to_pem(private_key=True, password=None).decode(), key.export_to_pem().decode()


PLATFORM_PRIVATE, PLATFORM_PUBLIC = new_key()  # the platform's key, once per test process


@functools.cache
def _loaded(private_pem: str):
    """A private key loaded once, with its key id. Loading a PEM checks the RSA key (tens of
    milliseconds), which lti1p3platform did for every token it signed: a fifth of the LTI
    tests' time."""
    key = serialization.load_pem_private_key(private_pem.encode(), password=None)
    return key, Registration.get_jwk(private_pem).get("kid")


class SigningRegistration(Registration):
    """lti1p3platform's registration, signing with keys loaded once (`_loaded`)."""

    def get_kid(self):
        return _loaded(self.get_platform_private_key())[1]

    def platform_encode_and_sign(self, payload, expiration=None):
        """Signs a launch (the only message it signs this way); `FakeLms.edit_claims`, when
        set, changes the claims first, as a faulty or hostile LMS would."""
        key, kid = _loaded(self.get_platform_private_key())
        fake = CURRENT.get("lms")
        headers = {"kid": kid} if kid and (fake is None or fake.send_kid) else None
        if expiration:
            payload.update({"iat": int(time.time()), "exp": int(time.time()) + expiration})
        if fake is not None and fake.edit_claims is not None:
            fake.edit_claims(payload)
        return Registration.encode_and_sign(payload, key, headers)

    @staticmethod
    def encode_and_sign(payload, private_key, headers=None, expiration=None):
        if isinstance(private_key, str):
            private_key = _loaded(private_key)[0]
        return Registration.encode_and_sign(payload, private_key, headers, expiration)


@dataclass
class FakeLms:
    base: str  # the test server's URL
    tool_login_url: str = ""  # Parsnip's OIDC login initiation URL (from its set-up page)
    tool_launch_url: str = ""
    tool_jwks_url: str = ""
    deployment_id: str = DEPLOYMENT_ID
    client_id: str = CLIENT_ID
    people: dict = field(default_factory=dict)  # sub -> {"name":..., "roles": {context: role}}
    contexts: dict = field(default_factory=dict)  # id -> title
    links: dict = field(
        default_factory=dict
    )  # resource link id -> {"context", "title", "custom", "lineitem"}
    line_items: dict = field(
        default_factory=dict
    )  # id -> {"context", "label", "scoreMaximum", "resourceId", "tag"}
    scores: dict = field(default_factory=dict)  # line item id -> {sub: score dict}
    score_posts: list = field(default_factory=list)  # every accepted POST, in order
    score_failures: list = field(default_factory=list)  # statuses to answer the next posts with
    token_failures: int = 0
    token_reads: int = 0  # access tokens asked for (failures included)
    tokens_issued: list = field(default_factory=list)
    tokens_revoked: set = field(default_factory=set)  # answered 401 (`revoke_tokens`)
    token_expiry_given: bool = True  # says how long a token lasts (`expires_in`)
    # While set, a score post hangs until `release` is set (or 60 s): an LMS that never answers.
    score_hangs: bool = False
    release: threading.Event = field(default_factory=threading.Event)
    dropped: set = field(default_factory=set)  # subs the roster no longer lists
    roster_failures: list = field(
        default_factory=list
    )  # statuses to answer the next roster reads with
    roster_hangs: bool = False  # like score_hangs, for the roster (released by `release` too)
    keyset_hangs: bool = False  # like score_hangs, for its public keyset (then answers it)
    keyset_failures: list = field(default_factory=list)  # statuses for the next keyset reads
    ags: bool = True
    audience: str = ""  # signs launches for another tool's client id when set
    token_lifetime: int = 300  # seconds; negative: launches arrive already expired
    signing_key: str = (
        ""  # another private key to sign launches with (its key id unknown to Parsnip)
    )
    private_key: str = PLATFORM_PRIVATE  # the key it signs with and publishes (`rotate_key`)
    public_key: str = PLATFORM_PUBLIC
    keyset_reads: int = 0  # how often its public keyset was fetched
    # Changes a launch's claims just before it is signed (deletes `exp`, lists two audiences...).
    edit_claims: object = None
    send_kid: bool = True  # False: launches' JWT headers name no key id
    # Every roster entry goes through this before it is answered (drops a field, adds one...).
    edit_member: object = None
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def issuer(self) -> str:
        return f"{self.base}/fake-lms"

    def url(self, tail: str) -> str:
        return f"{self.base}/fake-lms/{tail}"

    def registration(self, deployment_id: str | None = None) -> Registration:
        return (
            SigningRegistration()
            .set_iss(self.issuer)
            .set_client_id(self.client_id)
            .set_deployment_id(deployment_id or self.deployment_id)
            .set_oidc_login_url(self.tool_login_url)
            .set_launch_url(self.tool_launch_url)
            .set_deeplink_launch_url(self.tool_launch_url)
            .set_platform_public_key(self.public_key)
            .set_platform_private_key(self.private_key)
            .set_tool_key_set_url(self.tool_jwks_url)
        )

    def revoke_tokens(self) -> None:
        """Every access token issued so far is refused from now on (answered 401)."""
        with self.lock:
            self.tokens_revoked.update(self.tokens_issued)

    def rotate_key(self) -> None:
        """The LMS signs with a new key from now on, and its keyset lists only that one."""
        self.private_key, self.public_key = new_key()

    # What a person in the LMS does ------------------------------------------------------

    def add_person(self, sub: str, name: str, **roles: str | list[str]) -> None:
        """Someone in the LMS, with their role (or list of roles) in each course they are in."""
        self.people[sub] = {"name": name, "roles": roles}

    def roles_in(self, sub: str, context_id: str) -> list[str]:
        """The roles claim of `sub` in a course: the course's roles, and any of the
        institution's (`institution`, a list) which the LMS sends with every launch."""
        person = self.people[sub]
        role = person["roles"].get(context_id, LEARNER)
        return [*([role] if isinstance(role, str) else role), *person.get("institution", [])]

    def start_url(
        self, sub: str, *, link: str | None = None, deep_link_in: str | None = None
    ) -> str:
        """The LMS's page for clicking a link (or "add an activity" in a course)."""
        hint = f"link:{link}" if link else f"deep:{deep_link_in}"
        return self.url("start/?" + urlencode({"user": sub, "hint": hint}))


CURRENT: dict = {}  # the FakeLms the test server answers for (one per test)


def lms() -> FakeLms:
    return CURRENT["lms"]


class PlatformConfig(LTI1P3PlatformConfAbstract):
    def init_platform_config(self, **kwargs):
        self._deployment_id = kwargs.get("deployment_id")

    def get_registration_by_params(self, **kwargs):
        return lms().registration(self._deployment_id)


class DjangoRequestData(Request):
    def build_metadata(self, request):
        return {
            "method": request.method,
            "form_data": request.POST.dict(),
            "get_data": request.GET.dict(),
            "headers": request.headers,
            "content_type": request.content_type,
            "path": request.path,
            "json": None,
        }


class Login(OIDCLoginAbstract):
    def set_lti_message_hint(self, **kwargs):
        self._lti_message_hint = kwargs["hint"]

    def get_redirect(self, url):
        return HttpResponseRedirect(url)


class Launch(LTIAdvantageMessageLaunchAbstract):
    def prepare_launch(self, preflight_response):
        fake = lms()
        sub = preflight_response["login_hint"]
        kind, _, target = preflight_response["lti_message_hint"].partition(":")
        person = fake.people[sub]
        context_id = fake.links[target]["context"] if kind == "link" else target
        self.set_user_data(sub, fake.roles_in(sub, context_id), full_name=person["name"])
        self.set_launch_context_claim(
            context_id,
            context_types=["http://purl.imsglobal.org/vocab/lis/v2/course#CourseOffering"],
            context_title=fake.contexts[context_id],
            context_label=context_id,
        )
        if fake.ags:
            link = fake.links.get(target, {}) if kind == "link" else {}
            self.set_ags(
                fake.url(f"contexts/{context_id}/lineitems"),
                fake.url(f"lineitems/{link['lineitem']}") if link.get("lineitem") else None,
            )
        self.set_nrps(fake.url(f"contexts/{context_id}/memberships"))
        if kind == "link":
            link = fake.links[target]
            self.set_resource_link_claim(target, title=link["title"])
            if link.get("custom"):
                self.set_custom_parameters_claim(link["custom"])
        else:
            self.set_dl(fake.url(f"deep-link-return/{context_id}/"), title="Add an activity")

    def get_launch_message(self, include_extra_claims=True):
        message = super().get_launch_message(include_extra_claims)
        if lms().audience:
            message["aud"] = message["azp"] = lms().audience
        return message

    def generate_launch_request(self):
        fake = lms()
        self.set_id_token_expiration(fake.token_lifetime)
        if fake.signing_key:
            self._registration.set_platform_private_key(fake.signing_key)
        return super().generate_launch_request()

    def render_launch_form(self, launch_data, **kwargs):
        return allow_tool(
            "form-action",
            HttpResponse(
                f'<form method="post" action="{escape(launch_data["launch_url"])}" id="lti-launch">'
                f'<input type="hidden" name="state" value="{escape(launch_data["state"])}">'
                f'<input type="hidden" name="id_token" value="{escape(launch_data["id_token"])}">'
                '<button type="submit">Open in Parsnip</button></form>'
            ),
        )


def allow_tool(directive: str, response: HttpResponse) -> HttpResponse:
    """The test server's CSP is Parsnip's: the LMS's pages may also reach the tool where it
    is (another origin when a test puts it there)."""
    tool = urlsplit(lms().tool_launch_url or lms().base)
    response._csp_config = {
        **settings.SECURE_CSP,
        directive: ["'self'", f"{tool.scheme}://{tool.netloc}"],
    }
    return response


def course_page(request):
    """The LMS's course page with the link opened inside it, in an iframe (as most LMSs do).
    Parsnip is framed from wherever the LMS says it is (`tool_login_url`)."""
    fake = lms()
    link = request.GET["link"]
    start_url = fake.start_url(request.GET["user"], link=link)
    title = fake.contexts[fake.links[link]["context"]]
    response = HttpResponse(
        f"<!doctype html><title>{escape(title)}</title><h1>{escape(title)}</h1>"
        f'<iframe name="tool" title="Parsnip" src="{escape(start_url)}" width="900" height="600"></iframe>'
    )
    return allow_tool("frame-src", response)


def start(request):
    login = Login(request, PlatformConfig())
    login.set_lti_message_hint(hint=request.GET["hint"])
    if request.GET["hint"].startswith("deep:"):
        login.set_deeplinking_launch_url()
    return login.initiate_login(request.GET["user"])


def authorize(request):
    return Launch(DjangoRequestData(request), PlatformConfig()).lti_launch()


def jwks(request):
    fake = lms()
    with fake.lock:
        fake.keyset_reads += 1
        failure = fake.keyset_failures.pop(0) if fake.keyset_failures else None
    if failure:
        return JsonResponse({"error": f"keys unavailable ({failure})"}, status=failure)
    if fake.keyset_hangs:
        fake.release.wait(60)
    return JsonResponse({"keys": fake.registration().get_jwks()})


@csrf_exempt
def token(request):
    fake = lms()
    with fake.lock:
        fake.token_reads += 1
        if fake.token_failures:
            fake.token_failures -= 1
            return JsonResponse({"error": "temporarily_unavailable"}, status=503)
    answer = _platform().get_access_token(request.POST.dict())  # checks the tool's request
    # The same claims in the same second would sign to the same token: each gets an id, as
    # a real LMS's tokens differ, so a revoked one is never issued again.
    claims = jwt.decode(answer["access_token"], options={"verify_signature": False})
    answer["access_token"] = SigningRegistration.encode_and_sign(
        {**claims, "jti": uuid.uuid4().hex}, fake.private_key
    )
    with fake.lock:
        fake.tokens_issued.append(answer["access_token"])
    if not fake.token_expiry_given:
        del answer["expires_in"]
    return JsonResponse(answer)


def _platform():
    config = PlatformConfig()
    config.get_registration()
    return config


def _authorised(request, scope: str) -> bool:
    header = request.headers.get("Authorization", "")
    if header[7:] in lms().tokens_revoked:
        return False
    return header.startswith("Bearer ") and _platform().validate_token(
        header[7:], allowed_scopes=[scope]
    )


@csrf_exempt
def deep_link_return(request, context_id):
    fake = lms()
    items = _platform().validate_deeplinking_resp(request.POST.dict())
    made = []
    for item in items:
        link_id = f"link-{len(fake.links) + 1}"
        line_item = None
        if "lineItem" in item:
            line_item = str(len(fake.line_items) + 1)
            fake.line_items[line_item] = {
                "context": context_id,
                "label": item["lineItem"].get("label", item.get("title")),
                **item["lineItem"],
            }
            fake.scores[line_item] = {}
        fake.links[link_id] = {
            "context": context_id,
            "title": item.get("title", ""),
            "custom": item.get("custom", {}),
            "lineitem": line_item,
            "due": item.get("submission", {}).get("endDateTime"),
        }
        made.append(link_id)
    return HttpResponse(
        "".join(
            f'<p class="made-link" data-link="{escape(m)}">Added {escape(fake.links[m]["title"])}</p>'
            for m in made
        )
    )


@csrf_exempt
def lineitems(request, context_id):
    fake = lms()
    if not _authorised(request, "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem"):
        return JsonResponse({"error": "unauthorised"}, status=401)
    if request.method == "POST":
        data = json.loads(request.body)
        with fake.lock:
            item_id = str(len(fake.line_items) + 1)
            fake.line_items[item_id] = {"context": context_id, **data}
            fake.scores[item_id] = {}
        return JsonResponse({"id": fake.url(f"lineitems/{item_id}"), **data}, status=201)
    return JsonResponse(
        [
            {"id": fake.url(f"lineitems/{pk}"), **{k: v for k, v in item.items() if k != "context"}}
            for pk, item in fake.line_items.items()
            if item["context"] == context_id
        ],
        safe=False,
    )


@csrf_exempt
def scores(request, item_id):
    fake = lms()
    if not _authorised(request, "https://purl.imsglobal.org/spec/lti-ags/scope/score"):
        return JsonResponse({"error": "unauthorised"}, status=401)
    if request.content_type != SCORE_TYPE:
        return JsonResponse({"error": "wrong content type"}, status=415)
    if fake.score_hangs:  # hangs, then fails: a gateway timing out (the score is not kept)
        fake.release.wait(60)
        return JsonResponse({"error": "gateway timeout"}, status=504)
    with fake.lock:
        if fake.score_failures:
            status = fake.score_failures.pop(0)
            return JsonResponse({"error": f"refused ({status})"}, status=status)
        score = json.loads(request.body)
        previous = fake.scores[item_id].get(score["userId"])
        # AGS: a score older than the one held is ignored.
        if previous is None or score["timestamp"] >= previous["timestamp"]:
            fake.scores[item_id][score["userId"]] = score
        fake.score_posts.append((item_id, score))
    return HttpResponse(status=204)


def memberships(request, context_id):
    fake = lms()
    if not _authorised(
        request, "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"
    ):
        return JsonResponse({"error": "unauthorised"}, status=401)
    if fake.roster_hangs:
        fake.release.wait(60)
        return JsonResponse({"error": "gateway timeout"}, status=504)
    with fake.lock:
        if fake.roster_failures:
            status = fake.roster_failures.pop(0)
            return JsonResponse({"error": f"roster unavailable ({status})"}, status=status)
    members = [
        {
            "user_id": sub,
            "name": person["name"],
            "status": "Active",
            "roles": fake.roles_in(sub, context_id),
        }
        for sub, person in fake.people.items()
        if sub not in fake.dropped and context_id in person["roles"]
    ]
    if fake.edit_member is not None:
        for member in members:
            fake.edit_member(member)
    return JsonResponse(
        {"id": request.build_absolute_uri(), "context": {"id": context_id}, "members": members}
    )


urlpatterns = [
    path("fake-lms/course/", course_page),
    path("fake-lms/start/", start),
    path("fake-lms/authorize/", authorize),
    path("fake-lms/jwks/", jwks),
    path("fake-lms/token/", token),
    path("fake-lms/deep-link-return/<str:context_id>/", deep_link_return),
    path("fake-lms/contexts/<str:context_id>/lineitems", lineitems),
    path("fake-lms/lineitems/<str:item_id>/scores", scores),
    path("fake-lms/contexts/<str:context_id>/memberships", memberships),
]
