"""Phone numbers as GoTrue keeps them: E.164 digits without the '+' (validatePhone), and the channels codes go by."""

from __future__ import annotations

import re

from server.auth import error_codes as codes
from server.auth import sms
from server.auth.errors import bad_request
from server.core.config import Settings

INVALID_FORMAT = "Invalid phone number format (E.164 required)"
INVALID_CHANNEL = ("Invalid channel, supported values are 'sms' or 'whatsapp'. 'whatsapp' is only supported if"
                   " Twilio or Twilio Verify is used as the provider.")
_E164 = re.compile(r"[1-9][0-9]{1,14}")


def format_phone(phone: str) -> str:
    """GoTrue's formatPhoneNumber: no leading '+', no blanks."""
    return phone.removeprefix("+").replace(" ", "")


def is_valid_phone(phone: str) -> bool:
    """E.164 digits (after format_phone): 2 to 15 digits, not starting with 0. fullmatch: Go's `$`
    ends the text, Python's would let a trailing newline through."""
    return _E164.fullmatch(phone) is not None


def validate_phone(phone: str) -> str:
    """GoTrue's validatePhone: the number in its stored form, or 400 validation_failed."""
    formatted = format_phone(phone)
    if not is_valid_phone(formatted):
        raise bad_request(codes.VALIDATION_FAILED, INVALID_FORMAT)
    return formatted


def check_channel(settings: Settings, channel: str) -> str:
    """GoTrue's IsValidMessageChannel: 'sms' by default; with the Send SMS hook any channel goes
    to the hook; 'whatsapp' needs Twilio, which this server has not."""
    channel = channel or "sms"
    if not sms.hook_enabled(settings) and channel != "sms":
        raise bad_request(codes.VALIDATION_FAILED, INVALID_CHANNEL)
    return channel
