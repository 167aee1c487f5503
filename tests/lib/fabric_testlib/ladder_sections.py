"""The ladder page's sections (`/` of fabric_exporter), one per path, for tests that read what
the page says about a peer."""
import html
import re


def ladder_sections(page):
    """Each ladder section's (markup, text) by its data-peer: the markup for data- attributes,
    the text with tags removed and whitespace folded for the words."""
    out = {}
    for m in re.finditer(r'<section class="ladder" [^>]*data-peer="([^"]*)"(.*?)</section>', page,
                         re.S):
        text = re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", m.group(2))))
        out[m.group(1)] = (m.group(2), text)
    return out
