"""Private spans and secrets out of every field that is kept: ``<private>…</private>`` is
removed wherever text enters teambrain (prompts, drafts, hook payload fields), and a field that
could hold a credential goes through the secret rules. Stdlib only, and no ``re``: the full
secret rule set (``_secrets``, ~20 ms to import) loads only for a value that looks like it may
hold one, so the capture hook's tool-call path stays near bare interpreter start-up.
"""

from __future__ import annotations

__all__ = ["scrub", "scrub_text"]

PRIVATE_MARK = "[private]"
_OPEN, _CLOSE = "<private", "</private"
_SUSPECT_WORDS = ("pass", "pwd", "pw", "psw", "p/w", "secret", "token", "key", "cred", "login",
                  "auth", "bearer", "-p", "-u", "pin", "code", "phrase", "account", "combination",
                  "log in", "sign in", " / ", "admin",
                  # the word for a password in other languages (secrets._FOREIGN_WORD)
                  "kennwort", "zugangsdaten", "mdp", "identifiants", "contrase", "clave", "senha",
                  "palavra", "parol", "wachtwoord", "inloggegevens", "hasło", "haslo", "heslo",
                  "jelsz", "пароль", "lösenord", "losenord", "passord", "adgangskode", "kodeord",
                  "salasana", "şifre", "sifre", "κωδικ", "συνθηματικ", "סיסמ", "كلمة",
                  "パスワード", "暗証番号", "密码", "密碼", "口令", "비밀번호", "암호", "khẩu",
                  "khau", "kata sandi", "kata laluan", "पासवर्ड", "รหัสผ่าน")  # fmt: skip
_SEPARATORS = frozenset(" \t\r\n/\\.,;:@'\"`()[]{}<>=-_")
# ASCII-only lower-casing keeps every offset: str.lower() may change a string's length ("İ").
_ASCII_LOWER = {code: code + 32 for code in range(ord("A"), ord("Z") + 1)}


def strip_private(text: str) -> str:
    """``text`` with every ``<private …>…</private>`` span (case-insensitive; an unclosed one
    runs to the end) replaced by ``[private]``."""
    lower = text.translate(_ASCII_LOWER)
    start = lower.find(_OPEN)
    if start < 0:
        return text
    parts: list[str] = []
    cursor = 0
    while start >= 0:
        after = start + len(_OPEN)
        if after < len(lower) and (lower[after].isalnum() or lower[after] in "_-"):
            start = lower.find(_OPEN, after)  # <privateer>: not our tag
            continue
        parts.append(text[cursor:start])
        parts.append(PRIVATE_MARK)
        close = lower.find(_CLOSE, after)
        if close < 0:
            return "".join(parts)
        end = lower.find(">", close)
        cursor = len(text) if end < 0 else end + 1
        start = lower.find(_OPEN, cursor)
    parts.append(text[cursor:])
    return "".join(parts)


def _suspect(text: str) -> bool:
    """Whether ``text`` may hold a credential: words of one in a phrase or an assignment (not
    in a bare path like ``src/keyboard.py``), a URL with a user part, or a long letters-and-
    digits run (a token). Cheap; a False never loads the secret rules."""
    lower = text.lower()
    if ("://" in lower and "@" in lower) or (
        any(sep in text for sep in " \t=:：") and any(word in lower for word in _SUSPECT_WORDS)
    ):
        return True
    token = 0
    letters = digits = False
    for char in text + " ":  # a long run of letters and digits: maybe a token
        if char in _SEPARATORS:
            if token >= 16 and letters and digits:
                return True
            token, letters, digits = 0, False, False
        else:
            token += 1
            letters = letters or char.isalpha()
            digits = digits or char.isdigit()
    return False


def scrub_text(text: str) -> str:
    """A field's text as it may be kept: private spans removed, secrets redacted."""
    text = strip_private(text)
    if not _suspect(text):
        return text
    from .secrets import redact_secrets

    return redact_secrets(text)


def scrub(value: object) -> object:
    """``value`` (JSON-like: dicts, lists, strings) with :func:`scrub_text` applied to every
    string in it, keys included."""
    if isinstance(value, str):
        return scrub_text(value)
    if isinstance(value, dict):
        return {scrub_text(k) if isinstance(k, str) else k: scrub(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [scrub(item) for item in value]
    return value
