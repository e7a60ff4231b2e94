"""Secret detection and redaction: one rule set shared by lint, capture and propose.

Stdlib only (``re``, ``math``): the capture hook redacts on its hot path.
"""

from __future__ import annotations

import math
import re

# ``typing`` and ``dataclasses`` (with ``inspect``) cost the capture hook ~10 ms per user
# prompt: this module is on its path, so it imports neither at run time.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Final

__all__ = ["SecretFinding", "find_secrets", "redact_secrets"]

REDACTION_TEMPLATE: Final = "[REDACTED:{rule}]"


class SecretFinding(tuple[str, int, int, int]):
    """One secret found in a text: which rule, where (0-based offsets, 1-based line).
    Immutable and compared by value, like a frozen dataclass."""

    __slots__ = ()

    def __new__(cls, rule: str, start: int, end: int, line: int) -> SecretFinding:
        return tuple.__new__(cls, (rule, start, end, line))

    @property
    def rule(self) -> str:
        return self[0]

    @property
    def start(self) -> int:
        return self[1]

    @property
    def end(self) -> int:
        return self[2]

    @property
    def line(self) -> int:
        return self[3]

    def __repr__(self) -> str:
        return f"SecretFinding(rule={self.rule!r}, start={self.start}, end={self.end}, line={self.line})"


# (rule id, pattern, group holding the secret or 0 for the whole match)
_RULES: Final[tuple[tuple[str, str, int], ...]] = (
    (
        "private-key",
        r"-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----|\Z)",
        0,
    ),
    (
        "aws-access-key-id",
        r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ABIA|ACCA)[0-9A-Z]{16}\b",
        0,
    ),
    (
        "aws-secret-access-key",
        r"(?i)aws_?secret_?(?:access_?)?key[\"'\s]*[:=]\s*[\"']?([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])",
        1,
    ),
    ("gcp-api-key", r"\bAIza[0-9A-Za-z_\-]{35}(?![0-9A-Za-z_\-])", 0),
    ("google-oauth-token", r"\bya29\.[0-9A-Za-z_\-]{20,}", 0),
    ("azure-storage-key", r"(?i)AccountKey=([A-Za-z0-9+/]{86}==)", 1),
    ("github-token", r"\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,255}\b", 0),
    ("github-fine-grained-token", r"\bgithub_pat_[A-Za-z0-9_]{22,255}\b", 0),
    ("gitlab-token", r"\bgl(?:pat|ptt|dt|rt|cbt|soat|ffct|imt|agent)-[A-Za-z0-9_\-]{20,}\b", 0),
    ("slack-token", r"\bxox[abposr]-(?:[A-Za-z0-9]+-){1,4}[A-Za-z0-9]{6,}\b", 0),
    (
        "slack-webhook",
        r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/\-]{20,}",
        0,
    ),
    ("anthropic-api-key", r"\bsk-ant-(?:api|admin)\d{2}-[A-Za-z0-9_\-]{40,}", 0),
    (
        "openai-api-key",
        r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,200}T3BlbkFJ[A-Za-z0-9_\-]{20,200}",
        0,
    ),
    ("openai-like-api-key", r"\bsk-(?:proj-|svcacct-|live-|test-)?[A-Za-z0-9]{32,}\b", 0),
    ("stripe-key", r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}\b", 0),
    ("npm-token", r"\bnpm_[A-Za-z0-9]{36}\b", 0),
    ("pypi-token", r"\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_\-]{50,}", 0),
    ("huggingface-token", r"\bhf_[A-Za-z0-9]{34,}\b", 0),
    ("sendgrid-key", r"\bSG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}\b", 0),
    ("twilio-key", r"\bSK[0-9a-f]{32}\b", 0),
    (
        "jwt",
        r"\beyJ[A-Za-z0-9_\-]{8,1024}\.eyJ[A-Za-z0-9_\-]{8,8192}\.[A-Za-z0-9_\-]{8,1024}",
        0,
    ),
    ("bearer-token", r"(?i)\bbearer\s+([A-Za-z0-9._~+/\-]{20,}=*)", 1),
    (
        "url-password",
        r"\b[a-zA-Z][a-zA-Z0-9+.\-]{1,20}://[^\s:/@\"'`]{0,128}:([^\s/\"'`]{3,128})@[^\s@/\"'`]",
        1,
    ),
)

_COMPILED: Final = tuple((rule, re.compile(pattern), group) for rule, pattern, group in _RULES)

# name = value where the name says it is a credential; the value is judged by entropy. A name
# starts where its run of name characters does: starting inside a run of dashes too made a
# line of 20,000 dashes take 37 s (each start rescanned the rest of the run). Its parts are
# bounded too: "passwordpassword…" (120 KB) retried the rest of the run at every keyword.
#
# Every pattern here runs over committed text (a 120 KB one-word body is a commit away): no
# repetition that can rescan the rest of the text from each start (issue 32 point 3). A run
# that can restart inside itself ("sk-sk-…", "mysql-mysql-…") has an upper bound.
_ASSIGNMENT: Final = re.compile(
    r"(?i)(?<![A-Za-z0-9_.\-])([A-Za-z0-9_.\-]{0,64}(?:secret|token|passw(?:or)?d|passwd|pwd|api[_\-]?key|apikey"
    r"|access[_\-]?key|auth[_\-]?key|client[_\-]?secret|private[_\-]?key|credential)[A-Za-z0-9_.\-]{0,64})"
    r"[\"']?\s*(?:=|:|:=|=>)\s*[\"'`]?([^\s\"'`,;)}\]]{8,256})"
)
_PLACEHOLDER: Final = re.compile(
    r"(?i)^(?:\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|\$\(.*|\{\{.*\}\}|<[^>]*>|\*+|x+|\.{3,}|changeme|"
    r"your[_\-]?\w*|example\w*|placeholder|redacted|none|null|true|false|os\.environ.*|env\(.*)$"
)
_REDACTED_MARK: Final = re.compile(r"\[REDACTED:[a-z\-]+\]?")

# A code that opens something (a PIN-like value is a secret after it): "door code", "2FA code".
_CODE_WORD: Final = (
    r"(?:door|gate|alarm|entry|access|backup|recovery|verification|activation|unlock|security|"
    r"safe|lock|garage|building|wifi|one[\s\-]?time|otp|mfa|2fa|totp|invite|invitation|license|"
    r"licence|promo|pairing|sms|auth|login|pin)[\s_\-]?codes?"
)
_WEAK_WORDS: Final = frozenset(("key", "keys", "code", "codes", "combination"))

# Credentials as people type them in prose: "the staging DB password is hunter2-horse",
# "my pw for the VPN was Summer2024!", "token: 8f3ac9e1d2", "login root:toor",
# "mysql -u app -pS3cret", "--password=hunter2". A credential word, at most three words of
# qualifier ("for staging", "of the DB"), a connector (is / was / : / = / set to …), then the
# value. Unquoted values must look like a password, not like the next word of a sentence.
_CREDENTIAL_WORD: Final = (
    r"(?:pass\s+phrase|pass(?:word|wd|phrase|code)?s?|pwd|pw|psw|pswd|pword|p/w|pin|login|logins|"
    r"credentials?|creds|"
    r"secret(?:\s+key)?|(?:api|access|auth|secret|private|app|deploy|bot)[\s_\-]?(?:key|token)s?|"
    r"apikey|tokens?|bearer|"
    # Phrases, codes and keys people type (issue 32 point 14): "the pass phrase is …", "the door
    # code is 4471", "the license key is …"; "code", "key" and "combination" alone take only
    # a value that looks like one (see _WEAK_WORDS).
    r"(?:seed|recovery|mnemonic)\s+phrase|" + _CODE_WORD + r"|"
    r"(?:license|licence|product|encryption|decryption|signing|master|shared|wifi|wpa2?|network|"
    r"serial|activation|registration|ssh|gpg|pgp|session|service|admin|root|wallet)[\s_\-]?keys?|"
    r"keys?|codes?|combination)"
)
# What joins a credential word to its value in any language: a colon (also the full-width
# one), an equals sign or arrow, a dash between spaces, or brackets around the value itself.
_CONNECTOR: Final = r"\s*(?::=|=>|->|[:=→：])\s*|\s+(?:[—–]|--?)\s+|\s*\((?=[^\s()\"'`<>]{3,128}\))"
_VALUE: Final = r"\"[^\"\n]{3,128}\"|'[^'\n]{3,128}'|`[^`\n]{3,128}`|[^\s\"'`<>]{3,128}"
_PROSE_CREDENTIAL: Final = re.compile(
    r"(?i)(?<![A-Za-z0-9\-])(?P<kw>" + _CREDENTIAL_WORD + r")(?![A-Za-z0-9_])"
    r"(?P<qual>(?:\s+(?!(?:is|are|was|were|set|equals|reads|to)\b)[\w.\-/']+){0,4}?)"
    r"(?P<conn>"
    + _CONNECTOR
    + r"|\s*,?\s+(?:is|are|was|were|reads|equals|became|becomes|it'?s|it\s+is"
    r"|it\s+was)(?:\s+(?:now|still|set\s+to|changed\s+to|reset\s+to|updated\s+to|just|literally|"
    r"actually|simply|always|currently|all|again))?\s+|'s\s+"
    r"|\s+(?:set|changed|reset)\s+to\s+|\s+(?:to\s+)?(?=[\"'`]?[^\s\"'`]*\d|[\w.\-]{1,32}:[^\s:]{3,}))"
    r"(?P<value>" + _VALUE + r")"
)
# The same phrasing with the word for a password (or credentials) in other languages, and the
# ways those languages join it to the value: "das Passwort lautet …", "la contraseña es …",
# "пароль: …", "密码是…", "비밀번호는 …". Kept apart from the English pattern so that a short
# connector of another language ("to", "on", "je") never ends an English phrase early. A value
# after one of these words must look like a password (letters with digits or symbols, mixed
# case, or a PIN): which words of those languages are prose is not known here.
_FOREIGN_WORD: Final = (
    r"(?:passwort|kennwort|zugangsdaten|mot\s+de\s+passe|mdp|identifiants|contrase[ñn]a|clave"
    r"|credenciales|senha|palavra[\s\-]passe|credenciais|parola\s+d'ordine|password|credenziali"
    r"|wachtwoord|inloggegevens|has[łl]o|heslo|jelsz[óo]|пароль|l[öo]senord|passord|adgangskode"
    r"|kodeord|salasana|[şs]ifre|parol[aă]|κωδικ[όο]ς|συνθηματικ[όο]|סיסמ[הא]|كلمة\s+(?:المرور|السر)"
    r"|パスワード|暗証番号|密[码碼]|口令|비밀번호|암호|m[ậa]t\s+kh[ẩa]u|kata\s+(?:sandi|laluan)|पासवर्ड"
    r"|รหัสผ่าน)"
)
_FOREIGN_COPULA: Final = (
    r"(?:is|was|ist|lautet|war|hei(?:ß|ss)t|est|était|etait|c'est|es|era|está|é|è|e'|luidt|jest|brzmi|to"
    r"|je|bylo|это|är|var|er|on|oli|είναι|là|adalah|ialah)"
)
# Copulas that are English words too: after "password" they are English ("password on …").
_SHORT_COPULAS: Final = frozenset(("to", "je", "on", "er", "var", "war", "era", "e'"))
# ASCII-only words that call for the pattern of other languages (non-ASCII text always does);
# looked for as plain substrings of the lower-cased text, far cheaper than a pattern.
_FOREIGN_ASCII: Final = (
    "passwort",
    "kennwort",
    "zugangsdaten",
    "mot de passe",
    "mdp",
    "identifiants",
    "contrasena",
    "clave",
    "credencia",
    "senha",
    "palavra",
    "parol",
    "credenziali",
    "wachtwoord",
    "inloggegevens",
    "haslo",
    "heslo",
    "jelszo",
    "losenord",
    "passord",
    "adgangskode",
    "kodeord",
    "salasana",
    "sifre",
    "mat khau",
    "kata sandi",
    "kata laluan",
)
# A qualifier that says what the password is for ("the pass for grafana is …").
_FOR_WORDS: Final = frozenset(("for", "of", "on", "at", "to"))
_FOREIGN_PATTERN: Final = (
    r"(?i)(?<![A-Za-z0-9\-])(?P<kw>" + _FOREIGN_WORD + r")(?![A-Za-z0-9_])"
    r"(?P<qual>(?:\s+(?!" + _FOREIGN_COPULA + r"\s)[\w.\-/']+){0,3}?)"
    r"(?P<conn>" + _CONNECTOR + r"|\s*(?:は|が|是|为|為|는|은|이|가)\s*"
    r"|\s*,?\s+" + _FOREIGN_COPULA + r"\s+|\s+(?=[\"'`]?[^\s\"'`]*\d))"
    r"(?P<value>" + _VALUE + r")"
)
# Compiled on first use (about 2 ms): most text, and every capture hook call on ASCII text
# without such a word, never needs it.
_foreign: list[re.Pattern[str]] = []
_FLAG_PASSWORD: Final = re.compile(
    r"(?:\b(?:mysql\w*|mariadb\w*|mysqldump|mysqladmin)\b[^\n]{0,512}?\s-p(?P<mysql>[^\s-][^\s]{2,127})"
    r"|\bsshpass\s+-p\s*(?P<sshpass>[^\s]{3,128})"
    r"|(?<![\w-])(?:-u|--user)\s+[^\s:@/]{1,64}:(?P<user>\S{3,128})(?=\s|$)"
    r"|(?<![\w-])--?(?:password|passwd|pass|pwd|passphrase|token|api-key|secret)(?:=|\s+)"
    r"(?P<long>[^\s\-][^\s]{2,127}))"
)
# "credentials are admin / admin123", "login: deploy/Secr3t": the part after the separator.
_USER_PASS: Final = re.compile(
    r"(?i)(?<![A-Za-z0-9_])(?:login|logins|credentials?|creds|user(?:name)?\s*(?:and|&|/)\s*pass(?:word)?"
    r"|account)(?![A-Za-z0-9_])(?:\s+[\w.\-]+){0,4}?\s*(?:\s(?:is|are|was|were)\s|:|=)\s*"
    r"(?P<user>[\w.@\-]{1,64})\s*[/:]\s*(?P<value>[^\s\"'`]{3,128})"
)
# "log in with root / t00rt00r", "sign in as tester / Test1234", and a default account's pair
# typed bare: "admin / admin123 works", "use backup / Nas#Backup77". After "use" or "try" only
# a value with upper and lower case letters and digits is a password ("use x86 / arm64
# runners", "use node18 / node20", "use staging / prod-eu1" are not pairs).
_SIGN_IN_PAIR: Final = re.compile(
    r"(?i)(?:\b(?:log(?:ged)?[\s\-]?in|sign(?:ed)?[\s\-]?in|(?P<cue>use|try))\s+(?:(?:as|with|using)\s+)?"
    r"|(?<![^\s(])(?=(?:admin|administrator|root|guest|test|tester|demo|user|deploy|ubuntu|postgres|"
    r"sa|sysop|operator|jenkins|elastic|pi|oracle|ec2-user)\s*/))"
    r"(?P<user>[\w.@\-]{1,64})\s*/\s*(?P<value>[^\s\"'`/]{3,128})"
)
# Words that follow "password is" in sentences about passwords rather than in passwords.
_PROSE_WORD_LIST: Final = """a an the this that these those it its my your our their his her no not none any some
    all each every one two three four five six seven eight ten only just also still now then
    here there where when which who what why how and or but if so than as at by for from in
    into of off on onto out over to up via with within without about after before below
    above under between through during until unless because is are was were be been being
    has have had do does did will would shall should can could may might must required
    requires require mandatory optional needed necessary missing empty blank null nil unset
    set stored saved kept held managed handled rotated rotating rotation renewed refreshed
    changed change changing reset resetting updated update expired expires expiring expiry
    expiration valid invalid incorrect correct wrong right bad good weak strong short long
    longer shorter too very hashed encrypted encoded salted masked hidden shown visible
    secret private public shared same different new old default temporary permanent random
    generated auto automatic manual unique sensitive leaked compromised revoked disabled
    enabled active inactive locked unlocked protected unprotected case-sensitive checked
    verified validated accepted rejected refused denied sent passed used reused typed
    entered provided given returned configured defined documented available unavailable
    ready done complete field fields form input box prompt screen page dialog policy
    policies rule rules requirement requirements length format pattern strength history
    manager vault keychain keyring store storage file env environment variable variables
    config configuration settings setting header headers cookie cookies parameter parameters
    argument arguments flag flags option options value values string strings hash hashes
    salt expiry lifetime ttl scope scopes permission permissions rotation reuse limit limits
    bucket buckets count counts budget budgets usage cost costs refresh exchange endpoint
    endpoints flow flows type types based via check checks handling validation generation
    authentication authorization auth login logout signup signin sign-in sign-up page pages
    screen reset-link link links email emails sms otp mfa 2fa totp please see below above
    following attached here there again anymore yet already soon later today tomorrow
    yesterday daily weekly monthly yearly quarterly every hourly minutes hours days weeks
    months years seconds second minute hour day week month year ago long-lived short-lived
    good bad fine okay ok nice great broken working failing fails failed succeeded works
    matched mismatch mismatched match matches different read-only write-only deprecated
    obsolete supported unsupported allowed forbidden deleted removed per-user per-repo
    pending unknown tbd todo usual"""
_PROSE_WORDS: Final = frozenset(_PROSE_WORD_LIST.split())
_PROSE_URL: Final = re.compile(r"(?i)^(?:https?|ftp|file|ssh|git)://|^www\.|^[/~]|^\.{1,2}/")
# Not a credential: a quantity ("128k", "15ms", "3.5%"), a call ("getpass()"), a header name.
_PROSE_NOT_VALUE: Final = re.compile(
    r"(?i)^(?:\d+(?:[.,]\d+)*(?:[a-z]{1,3}|%)?|[\d/.,:\-+]+|[\w.]+\(.*|x-[\w\-]+|[\w.]+\[.*\]?)$"
)


_CODE_NAME: Final = re.compile(r"^[A-Za-z_][A-Za-z_]*(?:[._][A-Za-z_]+)+$|^[a-z]+(?:[A-Z][a-z]+)+$")
_PIN_WORDS: Final = re.compile(r"(?i)^(?:pass(?:word|wd|code)?s?|pwd|pw|pin|.*codes?|combination)$")
_VERSION: Final = re.compile(r"(?i)^v?\d+(?:\.\d+)+\w*$")


def _prose_matches(text: str) -> Iterator[re.Match[str]]:
    """Every credential word with a connector and a value, in English and in other languages."""
    yield from _PROSE_CREDENTIAL.finditer(text)
    if not text.isascii() or any(word in text.lower() for word in _FOREIGN_ASCII):
        if not _foreign:
            _foreign.append(re.compile(_FOREIGN_PATTERN))
        yield from _foreign[0].finditer(text)


def _prose_value(
    raw: str, has_connector: bool, has_qualifier: bool, keyword: str, ends: bool = True, *,
    foreign: bool = False, qualifier: str = "",
) -> tuple[int, int] | None:  # fmt: skip
    """Offsets of the credential inside ``raw`` (the text after the connector), or None when
    it reads like the next word of a sentence about passwords. After a word of another
    language (``foreign``) only a value that looks like a password is one."""
    quoted = raw[:1] in "\"'`" and raw[-1:] == raw[:1] and len(raw) >= 2
    value = raw[1:-1] if quoted else raw.rstrip(".,;:!?)]}")
    start = 1 if quoted else 0
    if not quoted and value[:1] in "([{":
        return None  # "(401/403)", "[see below]": an aside, not a value
    if (
        len(value) < (3 if quoted else 4)
        or _PLACEHOLDER.match(value)
        or _REDACTED_MARK.search(value)
    ):
        return None
    if _PROSE_URL.match(value) or value.lower() in _PROSE_WORDS:
        return None
    pin_word = foreign or bool(_PIN_WORDS.match(keyword))
    if (
        pin_word and has_connector and not has_qualifier and not quoted
        and value[:1].isdigit() and value[-1:].isdigit()
        and all(c.isdigit() or c == "-" for c in value) and sum(c.isdigit() for c in value) >= 4
    ):  # fmt: skip
        return (start, start + len(value))  # "the backup code: 4432-9981", "12-34-56"
    if not quoted and not value.isdigit() and _PROSE_NOT_VALUE.match(value):
        return None
    if (
        has_qualifier and keyword.lower() in ("pass", "login", "pin")
        and qualifier.split(" ", 1)[0].lower() not in _FOR_WORDS
    ):  # fmt: skip
        return None  # "a single pass as the load: `x`" (but "the pass for grafana is …")
    if keyword.lower() in _WEAK_WORDS and not (ends and _weak_word_value(value, has_connector)):
        return None  # "the code is clean", "error code 404", "the key is a UUID"
    if quoted:
        if _CODE_NAME.match(value) and not any(c.isdigit() for c in value):
            return None  # "`parse_memory`", "`os.environ`": a name in code, not a value
        return (start, start + len(value)) if " " not in value.strip() or len(value) >= 8 else None
    letters = any(c.isalpha() for c in value)
    digits = any(c.isdigit() for c in value)
    symbols = any(not c.isalnum() for c in value)
    mixed_case = any(c.isupper() for c in value[1:]) and any(c.islower() for c in value)
    strong = (letters and (digits or symbols or mixed_case)) or (digits and symbols)
    if value.isdigit() and not (pin_word and not has_qualifier and len(value) >= 4):
        return None  # "token count was 4096", "bump the token limit to 4096"
    if not has_connector:  # "password hunter2", "login root:toor": not a word of the sentence
        if has_qualifier and not (foreign and strong and digits):
            return None  # "pin numpy to 1.26" (but "пароль от сервера qwe123ASD")
        user, colon, secret = value.partition(":")
        if colon and user and len(secret) >= 3:
            return (start + len(user) + 1, start + len(value))
        return (start, start + len(value)) if digits and (strong or value.isdigit()) else None
    if value.isdigit():  # a PIN or passcode, not a count: "the passcode is 4491"
        return (start, start + len(value))
    if strong and (digits or not has_qualifier):
        return (start, start + len(value))
    if foreign or has_qualifier or not value.isalpha() or len(value) < 6 or not ends:
        return None  # "api key rotation is monthly", "credentials are loaded from …"
    return (start, start + len(value))  # "the wifi password is swordfish."


def _weak_word_value(value: str, has_connector: bool) -> bool:
    """After "code", "key" or "combination" alone only a value like "7d9f2a81c3e4" or
    "12-34-56" that ends its sentence is a secret; a word, a count, a version or a label
    ("moved code: 01KB… Where checkout lives") is the rest of a sentence."""
    if not has_connector or _VERSION.match(value):
        return False
    digits = sum(c.isdigit() for c in value)
    letters = any(c.isalpha() for c in value)
    return len(value) >= 6 and digits >= 2 and (letters or not value.isdigit())


# Passphrases of dictionary words after a password word and a connector: "the wifi password is
# purple monkey dishwasher". The run of words stops at a word that sentences about passwords
# use ("is stored in the vault"); three or more words, most of them not such words, remain.
_PASSPHRASE_KEYWORDS: Final = re.compile(
    r"(?i)^(?:pass(?:word|wd|phrase)?s?|pwd|pw|pass\s+phrase|(?:seed|recovery|mnemonic)\s+phrase|"
    r"secret|(?:master|wifi|shared)[\s_\-]?key)$"
)
_FUNCTION_WORD_LIST: Final = """a an the this that these those it its it's my your our their
    his her them they we you i me us to of in on at by for from with without into onto over under about against between
    as and or but nor so yet if then than because while when where which who whom whose what
    how why is are was were be been being am do does did done has have had having not no
    never must should shall can could will would may might please also too very just only
    something anything nothing everything someone anyone everyone user users people
    same different enough error errors message messages warning shows appears twice popup
    banner hint means"""
_FUNCTION_WORDS: Final = frozenset(_FUNCTION_WORD_LIST.split())
_PASSPHRASE_MAX_WORDS: Final = 8


def _passphrase_end(text: str, start: int) -> int | None:
    """End of a passphrase of three to eight dictionary words starting at ``start``, or None."""
    stop = start
    limit = min(len(text), start + 160)
    while stop < limit and text[stop] not in ".,;!?\n\"'`()[]{}<>":
        stop += 1
    words: list[str] = []
    offset = start
    for word in text[start:stop].split(" "):
        if (
            not word.isalpha()
            or word.lower() in _FUNCTION_WORDS
            or len(words) == _PASSPHRASE_MAX_WORDS
        ):
            break
        words.append(word)
        offset += len(word) + 1
    if len(words) < 3 or sum(w.lower() in _PROSE_WORDS for w in words) * 2 > len(words) - 1:
        return None
    return offset - 1


MIN_ASSIGNMENT_ENTROPY: Final = 3.0


def shannon_entropy(value: str) -> float:
    """Bits per character of ``value`` (0 for the empty string)."""
    if not value:
        return 0.0
    counts: dict[str, int] = {}
    for char in value:
        counts[char] = counts.get(char, 0) + 1
    total = len(value)
    return -sum(n / total * math.log2(n / total) for n in counts.values())


def _looks_secret(value: str) -> bool:
    if _PLACEHOLDER.match(value) or _REDACTED_MARK.search(value):
        return False
    if len(value) >= 8 and any(c.isalpha() for c in value) and any(c.isdigit() for c in value):
        return True  # DB_PASSWORD=correcthorse99: a word and digits, below the entropy bar
    if value.isalpha() and value.islower() and len(value) < 16:
        return False  # ``password: required`` and friends are prose, not secrets
    return shannon_entropy(value) >= MIN_ASSIGNMENT_ENTROPY


def find_secrets(text: str) -> list[SecretFinding]:
    """Every secret in ``text``, ordered by position, overlaps merged."""
    spans: list[tuple[int, int, str]] = []
    for rule, pattern, group in _COMPILED:
        for match in pattern.finditer(text):
            if not _REDACTED_MARK.search(match.group(group)):
                spans.append((match.start(group), match.end(group), rule))
    for match in _ASSIGNMENT.finditer(text):
        if _looks_secret(match.group(2)):
            spans.append((match.start(2), match.end(2), "high-entropy-assignment"))
    for match in _prose_matches(text):
        keyword, qualifier = match.group("kw"), match.group("qual").strip()
        last = qualifier.rpartition(" ")[2]
        if last and (_PASSPHRASE_KEYWORDS.match(last) or _PIN_WORDS.match(last)):
            keyword, qualifier = last, ""  # "the ssh key passphrase is …": the last word names it
        connector = match.group("conn").strip()
        connector = "" if connector == "to" else connector  # "password to X": weak, like none
        rest = text[match.end("value") : match.end("value") + 3]
        foreign = bool(_foreign) and match.re is _foreign[0]
        if foreign and keyword.lower() == "password" and connector.lower() in _SHORT_COPULAS:
            continue  # "password on Windows10 machines": English, not Polish or Czech
        found = _prose_value(
            match.group("value"),
            bool(connector),
            bool(qualifier),
            keyword,
            ends=not rest[:1] or rest[:1] in "\n.;!?)" or rest[:2] in (", ", ",\n"),
            foreign=foreign,
            qualifier=qualifier,
        )
        if found is not None:
            base = match.start("value")
            spans.append((base + found[0], base + found[1], "prose-credential"))
        elif connector and _PASSPHRASE_KEYWORDS.match(keyword):
            end = _passphrase_end(text, match.start("value"))
            if end is not None:
                spans.append((match.start("value"), end, "prose-credential"))
    for match in _USER_PASS.finditer(text):
        value = match.group("value").rstrip(".,;:!?)]}")
        if match.group("user").lower() in _PROSE_WORDS:
            continue  # "the login page is at /auth/login"
        if len(value) >= 3 and value.lower() not in _PROSE_WORDS and not _PLACEHOLDER.match(value):
            spans.append(
                (match.start("value"), match.start("value") + len(value), "prose-credential")
            )
    for match in _SIGN_IN_PAIR.finditer(text):
        value = match.group("value").rstrip(".,;:!?)]}")
        strong = any(c.isdigit() for c in value) or not value.isalnum()
        if match.group("cue") and (
            any(c.isdigit() for c in match.group("user"))
            or not (any(c.isupper() for c in value) and any(c.islower() for c in value))
            or not any(c.isdigit() for c in value)
        ):
            continue
        if (
            strong
            and len(value) >= 4
            and match.group("user").lower() not in _PROSE_WORDS
            and not _PLACEHOLDER.match(value)
            and not _PROSE_NOT_VALUE.match(value)
            and not _VERSION.match(value)
        ):
            spans.append(
                (match.start("value"), match.start("value") + len(value), "prose-credential")
            )
    for match in _FLAG_PASSWORD.finditer(text):
        name = next(n for n in ("mysql", "sshpass", "user", "long") if match.group(n) is not None)
        value = match.group(name).strip("\"'`")
        if _PLACEHOLDER.match(value) or _REDACTED_MARK.search(value):
            continue
        spaced = name == "long" and text[match.start(name) - 1].isspace()
        if spaced and (value.lower() in _PROSE_WORDS or (value.isalpha() and value.islower())):
            continue  # "pass the --token flag", "use --password when prompted": prose
        spans.append((match.start(name), match.end(name), "password-flag"))
    # A rule's own name is never a secret: "contains a secret (github-token)" is teambrain's
    # message about one, not a credential in brackets.
    spans = [span for span in spans if text[span[0] : span[1]] not in _RULE_NAMES]
    spans.sort(key=lambda span: (span[0], -span[1]))
    merged: list[tuple[int, int, str]] = []
    for start, end, rule in spans:
        if merged and start < merged[-1][1]:
            prev_start, prev_end, prev_rule = merged[-1]
            merged[-1] = (prev_start, max(prev_end, end), prev_rule)
            continue
        merged.append((start, end, rule))
    findings, line, counted = [], 1, 0
    for start, end, rule in merged:  # in order: each newline is counted once
        line += text.count("\n", counted, start)
        counted = start
        findings.append(SecretFinding(rule=rule, start=start, end=end, line=line))
    return findings


_RULE_NAMES: Final = frozenset(
    [rule for rule, _, _ in _RULES]
    + ["high-entropy-assignment", "password-flag", "prose-credential"]
)


def redact_secrets(text: str) -> str:
    """``text`` with every secret replaced by ``[REDACTED:<rule>]``."""
    findings = find_secrets(text)
    if not findings:
        return text
    parts: list[str] = []
    cursor = 0
    for finding in findings:
        parts.append(text[cursor : finding.start])
        parts.append(REDACTION_TEMPLATE.format(rule=finding.rule))
        cursor = finding.end
    parts.append(text[cursor:])
    return "".join(parts)


def has_secret(text: str) -> bool:
    """True when :func:`find_secrets` finds anything in ``text``."""
    return bool(find_secrets(text))
